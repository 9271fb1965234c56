import { afterEach, describe, expect, it, vi } from "vitest";
import { toHubError } from "../../src/http/problem";
import { loggableError, withoutQueryStrings } from "../../src/lib/safe-log";

describe("log lines", () => {
  it("never carry URL query strings or userinfo", () => {
    expect(withoutQueryStrings("fetch https://api.example.com/v1/x?token=abc&q=1 failed; retry http://u:p@h.example/p?s=2")).toBe(
      "fetch https://api.example.com/v1/x?[query removed] failed; retry http://h.example/p?[query removed]",
    );
    expect(withoutQueryStrings("no urls here? none")).toBe("no urls here? none");
  });

  it("cut fragments, URLs inside JSON, URLs glued together and database URLs too", () => {
    expect(withoutQueryStrings('{"url":"https://app.example/cb#access_token=abc","n":1}')).toBe('{"url":"https://app.example/cb#[fragment removed]","n":1}');
    expect(withoutQueryStrings('Error: {\\"next\\":\\"https://h.example/?t=secret\\"}')).toBe('Error: {\\"next\\":\\"https://h.example/?[query removed]\\"}');
    expect(withoutQueryStrings("a://x@y,b://u:p@h/ok")).toBe("a://y,b://h/ok");
    expect(withoutQueryStrings("connect postgres://admin:hunter2@db.example:5432/app?sslmode=require failed")).toBe(
      "connect postgres://db.example:5432/app?[query removed] failed",
    );
    // A URL inside another URL's query goes with that query.
    expect(withoutQueryStrings("https://h.example/login?next=https://u:p@evil.example/?t=1 done")).toBe("https://h.example/login?[query removed] done");
  });

  it("never carry a database statement's parameters", () => {
    const error = Object.assign(new Error('Failed query: insert into executions values (?, ?)\nparams: exe_1,{"password":"hunter2"}'), {
      query: "insert into executions values (?, ?)",
      params: ["exe_1", '{"password":"hunter2"}'],
      cause: new Error("D1_ERROR: UNIQUE constraint failed: executions.id"),
    });
    const line = loggableError(error);
    expect(line).toBe("Database query failed: D1_ERROR: UNIQUE constraint failed: executions.id");
    expect(line).not.toContain("hunter2");
  });

  it("stays linear on long inputs", () => {
    const started = Date.now();
    withoutQueryStrings(`${"http://a".repeat(50_000)}?x=1`);
    withoutQueryStrings("://".repeat(100_000));
    withoutQueryStrings(`http://${"@".repeat(100_000)}`);
    withoutQueryStrings(`https://h.example/${"a".repeat(100_000)}`);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe("the log line of an unexpected error", () => {
  afterEach(() => vi.restoreAllMocks());

  it("carries neither the query string nor the userinfo of a URL in its message or stack", () => {
    const logged: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: unknown) => void logged.push(String(line)));
    const problem = toHubError(new Error("GET https://bot:s3cret@api.example/v1?token=tok_123 failed"), "req_1");
    expect(problem.code).toBe("internal_error");
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain("https://api.example/v1?[query removed]");
    expect(logged[0]).not.toContain("tok_123");
    expect(logged[0]).not.toContain("s3cret");
  });
});
