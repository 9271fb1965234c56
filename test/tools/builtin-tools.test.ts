import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";

async function run(key: string, name: string, args: Record<string, unknown>) {
  const response = await call("/v1/tools/execute", { token: key, json: { name, arguments: args } });
  expect(response.status, await response.clone().text()).toBe(200);
  return json(response);
}

describe("built-in tools", () => {
  it("are listed for every user without any connection", async () => {
    const { key } = await newApiKey(await newUser());
    const { tools } = await json(await call("/v1/tools", { token: key }));
    const builtins = tools.filter((t: any) => t.source === "builtin").map((t: any) => t.name);
    expect(builtins).toEqual(["http_request", "json_transform", "text_template", "datetime", "math_evaluate", "uuid_generate", "memory_store", "wait"]);
    expect(tools.every((t: any) => t.available)).toBe(true);
  });

  it("http_request calls a URL and parses JSON", async () => {
    const { key } = await newApiKey(await newUser());
    const result = await run(key, "http_request", { url: `${env.TEST_FAKE_URL}/s/builtin-http/things/42`, query: { expand: "all" } });
    expect(result).toMatchObject({ success: true, result: { status: 200, ok: true, body: { id: "42", kind: "thing" } } });
    const seen = await (await fetch(`${env.TEST_FAKE_URL}/__requests/builtin-http`)).json<any[]>();
    expect(seen[0]).toMatchObject({ method: "GET", path: "/things/42", query: { expand: "all" } });
  });

  it("json_transform picks, filters, sorts and maps", async () => {
    const { key } = await newApiKey(await newUser());
    const leads = [
      { name: "Ada", score: 91, email: "ada@example.com" },
      { name: "Bob", score: 40, email: "bob@example.com" },
      { name: "Cy", score: 75, email: "cy@example.com" },
    ];
    const hot = await run(key, "json_transform", { operation: "filter", data: leads, path: "score", operator: "greater_than", value: 70 });
    expect(hot.result.value.map((l: any) => l.name)).toEqual(["Ada", "Cy"]);
    const sorted = await run(key, "json_transform", { operation: "sort", data: leads, path: "score", descending: true });
    expect(sorted.result.value.map((l: any) => l.score)).toEqual([91, 75, 40]);
    const mapped = await run(key, "json_transform", { operation: "map", data: leads, paths: { who: "name" } });
    expect(mapped.result.value).toEqual([{ who: "Ada" }, { who: "Bob" }, { who: "Cy" }]);
    const picked = await run(key, "json_transform", { operation: "get", data: { contact: { emails: ["a@x.io", "b@x.io"] } }, path: "contact.emails.1" });
    expect(picked.result.value).toBe("b@x.io");
  });

  it("text_template fills placeholders and reports the missing ones", async () => {
    const { key } = await newApiKey(await newUser());
    const result = await run(key, "text_template", {
      template: "Hi {{ lead.first_name }}, your score is {{lead.score}}. {{unknown}}",
      values: { lead: { first_name: "Ada", score: 91 } },
    });
    expect(result.result).toEqual({
      text: "Hi Ada, your score is 91. {{unknown}}",
      substitutions: ["{{lead.first_name}}", "{{lead.score}}"],
      missing: ["unknown"],
    });
  });

  it("datetime adds, diffs and formats in a time zone", async () => {
    const { key } = await newApiKey(await newUser());
    const added = await run(key, "datetime", { operation: "add", date: "2026-01-31T09:00:00Z", amount: 3, unit: "days", timezone: "Europe/Berlin" });
    expect(added.result).toMatchObject({ iso: "2026-02-03T09:00:00.000Z", hour: 10, weekday: "Tuesday" });
    const diff = await run(key, "datetime", { operation: "diff", date: "2026-11-01T00:00:00Z", other: "2026-11-22T12:00:00Z", unit: "days" });
    expect(diff.result.value).toBe(21.5);
    const bad = await run(key, "datetime", { operation: "format", date: "yesterday-ish" });
    expect(bad).toMatchObject({ success: false, error_message: expect.stringContaining("not a date") });
  });

  it("math_evaluate respects precedence, functions and variables, and refuses anything else", async () => {
    const { key } = await newApiKey(await newUser());
    expect((await run(key, "math_evaluate", { expression: "2 + 3 * 4 ^ 2 - -1" })).result.result).toBe(51);
    expect(
      (await run(key, "math_evaluate", { expression: "round(revenue / visitors * 100, 2)", variables: { revenue: 1234, visitors: 5678 } })).result.result,
    ).toBe(21.73);
    expect((await run(key, "math_evaluate", { expression: "max(1, avg(2, 4), sum(1,1,1))" })).result.result).toBe(3);
    for (const expression of ["constructor.constructor('return 1')()", "1 +", "x * 2", "1 / 0"]) {
      expect((await run(key, "math_evaluate", { expression })).success, expression).toBe(false);
    }
  });

  it("uuid_generate returns distinct v4 UUIDs", async () => {
    const { key } = await newApiKey(await newUser());
    const { result } = await run(key, "uuid_generate", { count: 5 });
    expect(new Set(result.uuids).size).toBe(5);
    for (const uuid of result.uuids) expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("memory_store keeps values per user, lists by prefix, expires and deletes", async () => {
    const alice = await newApiKey(await newUser());
    const bob = await newApiKey(await newUser());
    await run(alice.key, "memory_store", { operation: "set", key: "lead:ada@example.com", value: { emailed: true } });
    await run(alice.key, "memory_store", { operation: "set", key: "lead:bob@example.com", value: { emailed: false } });
    await run(alice.key, "memory_store", { operation: "set", key: "counter", value: 3 });
    expect((await run(alice.key, "memory_store", { operation: "get", key: "lead:ada@example.com" })).result).toEqual({
      key: "lead:ada@example.com",
      found: true,
      value: { emailed: true },
    });
    expect((await run(bob.key, "memory_store", { operation: "get", key: "lead:ada@example.com" })).result.found).toBe(false);
    const listed = await run(alice.key, "memory_store", { operation: "list", prefix: "lead:" });
    expect(listed.result.entries.map((e: any) => e.key)).toEqual(["lead:ada@example.com", "lead:bob@example.com"]);
    // A % in the prefix is literal, not a wildcard.
    expect((await run(alice.key, "memory_store", { operation: "list", prefix: "%" })).result.entries).toEqual([]);

    await run(alice.key, "memory_store", { operation: "set", key: "temp", value: 1, ttl_seconds: 60 });
    await env.DB.prepare("UPDATE memory_entries SET expires_at = ? WHERE key = 'temp'")
      .bind(Date.now() - 1)
      .run();
    expect((await run(alice.key, "memory_store", { operation: "get", key: "temp" })).result.found).toBe(false);

    expect((await run(alice.key, "memory_store", { operation: "delete", key: "counter" })).result.deleted).toBe(true);
    expect((await run(alice.key, "memory_store", { operation: "get", key: "counter" })).result.found).toBe(false);
  });

  it("wait pauses, reports progress, and refuses more than 30 seconds", async () => {
    const { key } = await newApiKey(await newUser());
    const result = await run(key, "wait", { seconds: 0.2 });
    expect(result.result.waited_seconds).toBeGreaterThanOrEqual(0.19);
    const problem = await expectProblem(
      await call("/v1/tools/execute", { token: key, json: { name: "wait", arguments: { seconds: 31 } } }),
      422,
      "validation_failed",
    );
    expect(problem.errors![0]).toMatchObject({ location: "body", field: "arguments.seconds" });
  });
});

describe("tool calls", () => {
  it("are audited per user with secrets redacted", async () => {
    const { key } = await newApiKey(await newUser());
    const other = await newApiKey(await newUser());
    await run(key, "http_request", {
      url: `${env.TEST_FAKE_URL}/s/audit/things/1`,
      headers: { Authorization: "Bearer sk-live-abcdefghijklmnop", "X-Trace": "visible" },
    });
    await run(key, "math_evaluate", { expression: "1 +" });
    const { data } = await json(await call("/v1/audit-logs", { token: key }));
    expect(data).toHaveLength(2);
    expect(data[0]).toMatchObject({
      tool: "math_evaluate",
      outcome: "error",
      error_message: expect.any(String),
      credential_id: expect.stringMatching(/^key_/),
      source: "api",
    });
    expect(data[1]).toMatchObject({ tool: "http_request", outcome: "success", arguments: { headers: { Authorization: "[redacted]", "X-Trace": "visible" } } });
    expect(JSON.stringify(data)).not.toContain("sk-live-abcdefghijklmnop");
    expect((await json(await call("/v1/audit-logs", { token: other.key }))).data).toEqual([]);
  });

  it("are rate limited per user with a 429 that names the tool-call limit", async () => {
    const { key } = await newApiKey(await newUser());
    const limit = Number(env.TOOL_RATE_LIMIT_PER_MINUTE);
    let response: Response | undefined;
    for (let i = 0; i <= 2 * limit && response?.status !== 429; i++) {
      response = await call("/v1/tools/execute", { token: key, json: { name: "uuid_generate", arguments: {} } });
    }
    const problem = await expectProblem(response!, 429, "rate_limited");
    expect(problem.detail).toContain("tool calls");
    expect(response!.headers.get("Retry-After")).toBeTruthy();
    // Reads are not tool calls: the rest of the API still answers.
    expect((await call("/v1/tools", { token: key })).status).toBe(200);
    // But reloading the MCP servers' tool lists asks the servers again: it counts as a call.
    const refresh = await expectProblem(await call("/v1/tools?refresh=true", { token: key }), 429, "rate_limited");
    expect(refresh.detail).toContain("tool calls");
  });

  it("count GET /v1/tools?refresh=true against the tool-call limit", async () => {
    const { key } = await newApiKey(await newUser());
    const first = await call("/v1/tools?refresh=true", { token: key });
    expect(first.status).toBe(200);
    const remaining = (await call("/v1/tools?refresh=true", { token: key })).headers.get("RateLimit") ?? "";
    const tools = Number(/"tools";r=(\d+)/.exec(remaining)?.[1]);
    expect(tools).toBe(Number(env.TOOL_RATE_LIMIT_PER_MINUTE) - 2);
  });

  it("answer 404 for an unknown tool and need the workflow:execute scope", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    await expectProblem(await call("/v1/tools/execute", { token: key, json: { name: "teleport", arguments: {} } }), 404, "not_found");
    const readOnly = await newApiKey(user, { scopes: ["data:read"] });
    await expectProblem(await call("/v1/tools/execute", { token: readOnly.key, json: { name: "uuid_generate", arguments: {} } }), 403, "insufficient_scope");
  });
});
