import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { connectModel, newScenario, openai, script } from "../conversations/helpers";

const testStep = (key: string, body: unknown) => call("/v1/workflows/test-step", { token: key, json: body });

async function ok(key: string, body: unknown) {
  const response = await testStep(key, body);
  expect(response.status, await response.clone().text()).toBe(200);
  return json(response);
}

describe("POST /v1/workflows/test-step", () => {
  it("runs a code step with the given input and answers exactly what it returned and what it logged", async () => {
    const { key } = await newApiKey(await newUser());
    const step = {
      id: "total",
      type: "code",
      code: 'console.log("items:", input.items.length);\nreturn input.items.reduce((sum, item) => sum + item.price, 0);',
    };
    const answer = await ok(key, { step, input: { items: [{ price: 3 }, { price: 4.5 }] } });
    expect(answer).toMatchObject({ status: "succeeded", result: 7.5, error: null, logs: ["items: 2"], logs_dropped: 0 });
    expect(typeof answer.duration_ms).toBe("number");
    // Nothing was saved: the person still has no workflow.
    expect((await json(await call("/v1/workflows", { token: key }))).data).toEqual([]);
  });

  it("without an input, gives the code the step's own input, or the shape a run's default has", async () => {
    const { key } = await newApiKey(await newUser());
    const echo = "return input;";
    expect((await ok(key, { step: { id: "a", type: "code", code: echo } })).result).toEqual({ input: {}, steps: {}, variables: {} });
    expect((await ok(key, { step: { id: "b", type: "code", code: echo, input: { n: 1 } } })).result).toEqual({ n: 1 });
  });

  it("answers the code's own failure with the line it threw on, the lines logged before it, and 200", async () => {
    const { key } = await newApiKey(await newUser());
    const answer = await ok(key, { step: { id: "boom", type: "code", code: 'console.log("before");\nconst x = 1;\nthrow new Error("no price");' } });
    expect(answer).toMatchObject({ status: "failed", result: null, logs: ["before"] });
    expect(answer.error).toBe("Error: no price (line 3)");
  });

  it("answers console lines and errors bounded by the host, even when the code replaced String.prototype.slice", async () => {
    const { key } = await newApiKey(await newUser());
    const code = 'String.prototype.slice = () => "y".repeat(50000);\nconsole.log("x".repeat(5000));\nthrow new Error("e".repeat(1e6));';
    const answer = await ok(key, { step: { id: "loud", type: "code", code } });
    expect(answer.logs).toEqual([`${"x".repeat(1000)}…`]);
    expect(answer.error).toBe(`Error: ${"e".repeat(2000 - "Error: ".length)}… (line 3)`);
  });

  it("holds the step's CPU budget: an endless loop fails within it", async () => {
    const { key } = await newApiKey(await newUser());
    const started = Date.now();
    const answer = await ok(key, { step: { id: "spin", type: "code", code: "while (true) {}", cpu_ms: 50 } });
    expect(answer.status).toBe("failed");
    expect(answer.error).toContain("CPU budget of 50 ms");
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("runs a set, a condition and a tool step once in the context given: the run's input, earlier steps' results, variables", async () => {
    const { key } = await newApiKey(await newUser());
    const given = { input: { name: "Ada" }, steps: { fetch: { total: 6 } }, variables: { greeting: "Hi" } };
    const set = await ok(key, {
      ...given,
      step: { id: "hello", type: "set", values: { text: "{{greeting}} {{input.name}}", total: "{{steps.fetch.result.total}}" } },
    });
    expect(set).toMatchObject({ status: "succeeded", result: { text: "Hi Ada", total: 6 }, error: null, logs: [] });

    // A condition answers the branch it takes; the steps of the branch do not run.
    const condition = {
      id: "big",
      type: "condition",
      condition: { field: "steps.fetch.result.total", operator: "greater_than", value: 5 },
      then: [{ id: "never", type: "tool", tool: "math_evaluate", arguments: { expression: "1/0" } }],
      else: [],
    };
    const branch = await ok(key, { ...given, step: condition });
    expect(branch).toMatchObject({ status: "succeeded", result: { branch: "then" } });

    const tool = { id: "calc", type: "tool", tool: "math_evaluate", arguments: { expression: "{{steps.fetch.result.total}} * 7" } };
    expect(await ok(key, { ...given, step: tool })).toMatchObject({ status: "succeeded", result: { result: 42 }, error: null });
    // The tool's own failure is an answer, after one attempt (a run's retries are not waited for).
    const failing = await ok(key, { step: { ...tool, arguments: { expression: "2 *" }, retry: { max_attempts: 3, delay_seconds: 60 } } });
    expect(failing).toMatchObject({ status: "failed", result: null });
    expect(failing.error).toBeTruthy();
    // A delay answers at once with when a run would go on.
    const delay = await ok(key, { step: { id: "later", type: "delay", seconds: 3600 } });
    expect(delay.status).toBe("waiting");
    expect(Date.parse(delay.resume_at) - Date.now()).toBeGreaterThan(3500_000);
    // A placeholder with no value fails the step, naming it.
    const missing = await ok(key, { step: { id: "m", type: "set", values: { x: "{{input.nothing}}" } } });
    expect(missing).toMatchObject({ status: "failed" });
    expect(missing.error).toContain("input.nothing");
  });

  it("runs an agent step, and what its model requests spent is in the ledger like a run's", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("trialagent");
    await connectModel(key, scenario);
    await script(scenario, [
      openai.toolCalls([{ id: "call_sum", name: "math_evaluate", args: { expression: "40 + 2" } }], { prompt_tokens: 30, completion_tokens: 5 }),
      openai.text("It is 42.", { prompt_tokens: 50, completion_tokens: 7 }),
    ]);
    const answer = await ok(key, { step: { id: "think", type: "agent", prompt: "Add 40 and 2.", provider: "openai", tools: ["math_evaluate"] } });
    expect(answer).toMatchObject({ status: "succeeded", result: { text: "It is 42.", steps: 2 } });
    const usage = await json(await call("/v1/usage?group_by=model", { token: key }));
    expect(usage.data).toEqual([expect.objectContaining({ input_tokens: 80, output_tokens: 12, model_calls: 2 })]);

    // A call a policy holds for a person is refused in a step test (no one would ever decide it), and no approval is left.
    await script(scenario, [openai.toolCalls([{ id: "call_ask", name: "math_evaluate", args: { expression: "1 + 1" } }]), openai.text("Could not.")]);
    const held = await ok(key, {
      step: {
        id: "ask",
        type: "agent",
        prompt: "Add.",
        provider: "openai",
        tools: ["math_evaluate"],
        tool_policies: [{ tool: "math_evaluate", action: "ask" }],
      },
    });
    expect(held).toMatchObject({ status: "succeeded", result: { text: "Could not.", tool_calls: [{ name: "math_evaluate", success: false }] } });
    expect(held.result.tool_calls[0].error).toContain("asks a person first, and a step test does not wait for one");
    expect((await json(await call("/v1/approvals", { token: key }))).data).toEqual([]);
  });

  it("refuses an invalid step with 422 naming the field", async () => {
    const { key } = await newApiKey(await newUser());
    const invalid = await expectProblem(await testStep(key, { step: { id: "c", type: "code", code: "return 1;", cpu_ms: 999999 } }), 422, "validation_failed");
    expect(invalid.errors?.map((e) => e.field)).toEqual(["step.cpu_ms"]);
    const syntax = await ok(key, { step: { id: "s", type: "code", code: "return (;" } });
    expect(syntax.status).toBe("failed");
    expect(syntax.error).toMatch(/SyntaxError/);
  });

  it("needs a credential, and counts each test against the tool-call limit: 429 with Retry-After when it is spent", async () => {
    expect((await call("/v1/workflows/test-step", { json: { step: { id: "a", type: "code", code: "return 1;" } } })).status).toBe(401);
    const user = await newUser();
    // Running code is running something: a read-only key may not.
    const reader = await newApiKey(user, { scopes: ["data:read"] });
    expect((await testStep(reader.key, { step: { id: "a", type: "code", code: "return 1;" } })).status).toBe(403);
    const { key } = await newApiKey(user);
    const first = await testStep(key, { step: { id: "a", type: "code", code: "return 1;" } });
    expect(first.status).toBe(200);
    expect(first.headers.get("RateLimit")).toMatch(/"tools";r=\d+/);
    const limit = Number(env.TOOL_RATE_LIMIT_PER_MINUTE);
    let response: Response | undefined;
    for (let i = 0; i <= 2 * limit && response?.status !== 429; i++) {
      response = await call("/v1/tools/execute", { token: key, json: { name: "uuid_generate", arguments: {} } });
    }
    expect(response?.status).toBe(429);
    const refused = await testStep(key, { step: { id: "a", type: "code", code: "return 1;" } });
    expect(refused.headers.get("Retry-After")).toBeTruthy();
    expect((await expectProblem(refused, 429, "rate_limited")).detail).toContain("tool calls");
  });
});
