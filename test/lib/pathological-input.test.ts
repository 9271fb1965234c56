import { describe, expect, it } from "vitest";
import { evaluateCondition } from "../../src/lib/conditions";
import { SubstitutionTooLarge, findPlaceholders, substitute } from "../../src/lib/template";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";

/**
 * Every input a user controls must cost time linear in its size. The bound below is generous
 * (the machine may be busy); a quadratic scan of these inputs takes tens of seconds.
 */
const FAST_MS = 2000;

async function timed<T>(work: () => Promise<T> | T): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work();
  return { value, ms: Date.now() - started };
}

const BRACES = "{".repeat(100_000);
const OPENERS = "{{a".repeat(30_000);
const SPACED = `{{${" ".repeat(100_000)}`;
const NEAR_MISSES = "{{ a.b-c_d ".repeat(9_000);

describe("templates and conditions stay linear", () => {
  it("scans pathological templates quickly and leaves them as written", async () => {
    for (const template of [BRACES, OPENERS, SPACED, NEAR_MISSES, "}}".repeat(50_000)]) {
      const { value, ms } = await timed(() => substitute({ t: template }, { a: 1 }));
      expect(ms).toBeLessThan(FAST_MS);
      expect((value.value as { t: string }).t).toBe(template);
    }
    // Placeholders are still found among the noise, including one right after extra braces.
    expect(substitute("{{{name}}}", { name: "Ada" }).value).toBe("{Ada}");
    expect(findPlaceholders(`${"{".repeat(1000)}{{ x }}`).map((p) => p.path)).toEqual(["x"]);
  });

  it("refuses a substitution that would grow past 1 MiB instead of building it", () => {
    const big = "x".repeat(100_000);
    expect(() => substitute("{{big}}".repeat(20), { big })).toThrow(SubstitutionTooLarge);
    const fields = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, "{{big}}"]));
    expect(() => substitute(fields, { big })).toThrow("larger than 1024 KiB");
  });

  it("evaluates conditions over pathological fields and patterns quickly", async () => {
    const { value, ms } = await timed(() => evaluateCondition({ field: "input.s", operator: "contains", value: OPENERS }, { input: { s: BRACES } }));
    expect(ms).toBeLessThan(FAST_MS);
    expect(value).toMatchObject({ result: false, expected_value: OPENERS });
    // A classic catastrophic-backtracking pattern runs on RE2, in linear time.
    const redos = await timed(() => evaluateCondition({ field: "input.s", operator: "matches", value: "^(a+)+$" }, { input: { s: `${"a".repeat(9_000)}!` } }));
    expect(redos.ms).toBeLessThan(FAST_MS);
    expect(redos.value.result).toBe(false);
  });
});

describe("built-in tools and debug endpoints answer pathological input fast and clearly", () => {
  it("text_template, json_transform, math_evaluate, datetime, uuid_generate, memory_store, wait", async () => {
    const { key } = await newApiKey(await newUser());
    const run = async (name: string, args: unknown) => {
      const { value: response, ms } = await timed(() => call("/v1/tools/execute", { token: key, json: { name, arguments: args } }));
      expect(ms, name).toBeLessThan(FAST_MS);
      return response;
    };

    const template = await json(await run("text_template", { template: BRACES, values: { a: 1 } }));
    expect(template).toMatchObject({ success: true, result: { text: BRACES, missing: [] } });
    const openers = await json(await run("text_template", { template: OPENERS.slice(0, 99_000), values: {} }));
    expect(openers.success).toBe(true);
    const grown = await json(await run("text_template", { template: "{{big}}".repeat(20), values: { big: "y".repeat(60_000) } }));
    expect(grown).toMatchObject({ success: false, error_message: "The substituted value is larger than 1024 KiB." });

    const items = Array.from({ length: 5_000 }, (_, i) => ({ name: `${"{".repeat(20)}${i}`, n: i }));
    const sorted = await json(await run("json_transform", { operation: "sort", data: items, path: "name", descending: true }));
    expect(sorted.success).toBe(true);
    const filtered = await json(await run("json_transform", { operation: "filter", data: items, path: "name", operator: "contains", value: "{{{" }));
    expect(filtered.result.value).toHaveLength(5_000);

    const nested = await json(await run("math_evaluate", { expression: `${"(".repeat(500)}1${")".repeat(499)}` }));
    expect(nested).toMatchObject({ success: false });
    expect(nested.error_message).toMatch(/Expected|Unexpected|\)/);
    const power = await json(await run("math_evaluate", { expression: "9^9^9^9" }));
    expect(power).toMatchObject({ success: false, error_message: expect.stringContaining("not a finite number") });
    const digits = await json(await run("math_evaluate", { expression: `${"1".repeat(999)}e` }));
    expect(digits.success).toBe(false);

    await expectProblem(await run("datetime", { operation: "format", date: "9".repeat(65) }), 422, "validation_failed");
    const badDate = await json(await run("datetime", { operation: "format", date: "9".repeat(64) }));
    expect(badDate.success).toBe(false);
    await expectProblem(await run("uuid_generate", { count: 1_000_000 }), 422, "validation_failed");
    await expectProblem(await run("memory_store", { operation: "set", key: "k".repeat(10_000), value: 1 }), 422, "validation_failed");
    await expectProblem(await run("wait", { seconds: 1e9 }), 422, "validation_failed");
  });

  it("test-substitution and test-condition answer at once, and refuse runaway growth with 422", async () => {
    const { key } = await newApiKey(await newUser());
    const substitution = await timed(() =>
      call("/v1/workflows/test-substitution", { token: key, json: { parameters: { t: BRACES, u: OPENERS }, context: { a: 1 } } }),
    );
    expect(substitution.ms).toBeLessThan(FAST_MS);
    expect(substitution.value.status).toBe(200);
    expect((await json(substitution.value)).substituted_parameters.t).toBe(BRACES);

    const grown = await call("/v1/workflows/test-substitution", {
      token: key,
      json: { parameters: { t: "{{big}}".repeat(20) }, context: { big: "z".repeat(60_000) } },
    });
    const problem = await expectProblem(grown, 422, "validation_failed");
    expect(problem.detail).toContain("larger than");

    const condition = await timed(() =>
      call("/v1/workflows/test-condition", {
        token: key,
        json: { condition: { field: "{{ s }}", operator: "starts_with", value: NEAR_MISSES }, context: { s: SPACED } },
      }),
    );
    expect(condition.ms).toBeLessThan(FAST_MS);
    expect(condition.value.status).toBe(200);
    expect(await json(condition.value)).toMatchObject({ result: false, evaluated_value: SPACED });
  });

  it("the local intent router and argument filler scan long messages in one pass", async () => {
    const { key } = await newApiKey(await newUser());
    const conversation = await json(await call("/v1/conversations", { token: key, json: {} }));
    for (const content of ["“".repeat(31_000), `${"when ".repeat(6_000)}automate`, "'".repeat(31_000), `${"(".repeat(15_000)}expression: 1`]) {
      const { value, ms } = await timed(() => call(`/v1/conversations/${conversation.id}/explain-intent`, { token: key, json: { content } }));
      expect(ms).toBeLessThan(FAST_MS);
      expect(value.status).toBe(200);
    }
  });
});
