import { describe, expect, it } from "vitest";
import { loggableError, withoutQueryStrings } from "../../src/lib/safe-log";

describe("log lines", () => {
  it("never carry URL query strings or userinfo", () => {
    expect(withoutQueryStrings("fetch https://api.example.com/v1/x?token=abc&q=1 failed; retry http://u:p@h.example/p?s=2")).toBe(
      "fetch https://api.example.com/v1/x?[query removed] failed; retry http://h.example/p?[query removed]",
    );
    expect(withoutQueryStrings("no urls here? none")).toBe("no urls here? none");
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
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
