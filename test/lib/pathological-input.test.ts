import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { evaluateCondition } from "../../src/lib/conditions";
import { SubstitutionTooLarge, findPlaceholders, substitute } from "../../src/lib/template";
import { fillArguments } from "../../src/llm/local/argument-filler";
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

/** `[[[…1…]]]`: a 1 MiB body can nest this deep; every recursive walk would overflow on it. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}
const DEEP = nested(100_000);
/**
 * Deep enough to break any per-value limit (64), shallow enough to pass the request's own limit
 * (128 levels, checked before validation): the value's own refusal names its field.
 */
const DEEP_ARGUMENT = nested(100);

/** A tool runner for one fresh user (tool calls are limited per user and minute). */
async function toolRunner() {
  const { key } = await newApiKey(await newUser());
  return async (name: string, args: unknown) => {
    const { value: response, ms } = await timed(() => call("/v1/tools/execute", { token: key, json: { name, arguments: args } }));
    expect(ms, name).toBeLessThan(FAST_MS);
    return response;
  };
}

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

  it("refuses templates, and values put into them, nested deeper than 64 levels instead of overflowing", () => {
    expect(() => substitute({ x: DEEP }, {})).toThrow("nested deeper than 64 levels");
    expect(() => substitute({ x: "{{a}}" }, { a: DEEP })).toThrow(SubstitutionTooLarge);
    expect(() => substitute("value: {{a}}", { a: DEEP })).toThrow("nested deeper than 64 levels");
    // The limit counts the levels around the placeholder too, and real data stays well inside it.
    expect(() => substitute(nested(40), { a: 1 })).not.toThrow();
    expect(() => substitute({ wrap: "{{a}}" }, { a: nested(63) })).not.toThrow();
    expect(() => substitute({ wrap: { more: "{{a}}" } }, { a: nested(63) })).toThrow(SubstitutionTooLarge);
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

  it("compares one big value with a long list in time linear in their sizes", async () => {
    // Was: the big value re-serialised for every item of the list (250,000 × 500 KB).
    const big = "x".repeat(500_000);
    const list = Array.from({ length: 250_000 }, () => 1);
    for (const operator of ["in", "not_in"] as const) {
      const { value, ms } = await timed(() => evaluateCondition({ field: "input.big", operator, value: list }, { input: { big } }));
      expect(ms, operator).toBeLessThan(FAST_MS);
      expect(value.result).toBe(operator === "not_in");
    }
    const contains = await timed(() => evaluateCondition({ field: "input.list", operator: "contains", value: "{{input.big}}" }, { input: { big, list } }));
    expect(contains.ms).toBeLessThan(FAST_MS);
    expect(contains.value.result).toBe(false);
    // Numbers and numeric strings still compare as numbers.
    expect(evaluateCondition({ field: "input.n", operator: "in", value: [1, "5", 7] }, { input: { n: 5 } }).result).toBe(true);
  });

  it("refuses to compare a field nested deeper than 64 levels, with a clear error", () => {
    expect(() => evaluateCondition({ field: "input.deep", operator: "equals", value: 1 }, { input: { deep: DEEP } })).toThrow(
      "The value of input.deep is nested deeper than 64 levels.",
    );
  });
});

describe("the local argument filler stays linear", () => {
  const schema = { type: "object", properties: { note: { type: "string" }, tags: { type: "array" } }, required: ["note"] };

  it("reads long runs of closing punctuation, whitespace and near-miss names in one pass", async () => {
    for (const message of [
      `note: a${".".repeat(60_000)}b`, // was quadratic: trailing-punctuation regex from every dot
      `note: x, tags: a${" ".repeat(60_000)}b`, // was quadratic: list split at every space
      " not".repeat(8_000),
      `note${" ".repeat(30_000)}`,
      `(note: "${"'".repeat(30_000)}`,
    ]) {
      const { ms } = await timed(() => fillArguments(message, schema));
      expect(ms).toBeLessThan(FAST_MS);
    }
  });

  it("still fills what it filled before", () => {
    expect(fillArguments('Post note: Launch day!!; tags: "web, email and  social"', schema)).toEqual({
      ok: true,
      args: { note: "Launch day", tags: ["web", "email", "social"] },
    });
    expect(fillArguments('NOTE = "a, b"', schema)).toEqual({ ok: true, args: { note: "a, b" } });
    expect(fillArguments("(note: in parens) and more", schema).args.note).toBe("in parens) and more");
    expect(fillArguments("keynote: no", schema)).toMatchObject({ ok: false, missing: ["note"] });
    expect(fillArguments("connection id: 7", { type: "object", properties: { connection_id: { type: "number" } } }).args).toEqual({ connection_id: 7 });
  });
});

describe("built-in tools and debug endpoints answer pathological input fast and clearly", () => {
  it("text_template: braces, openers, runaway growth and deep values", async () => {
    const run = await toolRunner();
    const template = await json(await run("text_template", { template: BRACES, values: { a: 1 } }));
    expect(template).toMatchObject({ success: true, result: { text: BRACES, missing: [] } });
    const openers = await json(await run("text_template", { template: OPENERS.slice(0, 99_000), values: {} }));
    expect(openers.success).toBe(true);
    const spaced = await json(await run("text_template", { template: SPACED.slice(0, 99_000), values: {} }));
    expect(spaced.success).toBe(true);
    const grown = await json(await run("text_template", { template: "{{big}}".repeat(20), values: { big: "y".repeat(60_000) } }));
    expect(grown).toMatchObject({ success: false, error_message: "The substituted value is larger than 1024 KiB." });
    const deep = await expectProblem(await run("text_template", { template: "{{a}}", values: { a: DEEP_ARGUMENT } }), 422, "validation_failed");
    expect(deep.errors?.[0]).toMatchObject({ field: "arguments.values", message: "The value is nested deeper than 64 levels." });
  });

  it("json_transform: big lists, many paths and deep data", async () => {
    const run = await toolRunner();
    const items = Array.from({ length: 5_000 }, (_, i) => ({ name: `${"{".repeat(20)}${i}`, n: i }));
    const sorted = await json(await run("json_transform", { operation: "sort", data: items, path: "name", descending: true }));
    expect(sorted.success).toBe(true);
    const filtered = await json(await run("json_transform", { operation: "filter", data: items, path: "name", operator: "contains", value: "{{{" }));
    expect(filtered.result.value).toHaveLength(5_000);
    // Long paths looked up in many items, and a big value compared with each of them.
    const numbers = Array.from({ length: 100_000 }, (_, i) => i);
    const path = Array.from({ length: 200 }, () => "a").join(".");
    const missed = await json(await run("json_transform", { operation: "filter", data: numbers, path, operator: "equals", value: "z".repeat(300_000) }));
    expect(missed).toMatchObject({ success: true, result: { value: [] } });

    await expectProblem(await run("json_transform", { operation: "get", data: DEEP_ARGUMENT, path: "" }), 422, "validation_failed");
    await expectProblem(await run("json_transform", { operation: "set", data: {}, path: "a", value: nested(65) }), 422, "validation_failed");
    await expectProblem(await run("json_transform", { operation: "merge", data: {}, with: [{ a: nested(70) }] }), 422, "validation_failed");
    const paths = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, "a"]));
    const tooMany = await expectProblem(await run("json_transform", { operation: "map", data: [{ a: 1 }], paths }), 422, "validation_failed");
    expect(tooMany.errors?.[0]?.message).toBe("At most 100 paths.");
    const shallow = await json(await run("json_transform", { operation: "get", data: nested(60), path: "0.0" }));
    expect(shallow.success).toBe(true);
  });

  it("math_evaluate and datetime: deep nesting, huge numbers and long digit strings", async () => {
    const run = await toolRunner();
    const nestedParens = await json(await run("math_evaluate", { expression: `${"(".repeat(500)}1${")".repeat(499)}` }));
    expect(nestedParens).toMatchObject({ success: false, error_message: 'Expected ")".' });
    const power = await json(await run("math_evaluate", { expression: "9^9^9^9" }));
    expect(power).toMatchObject({ success: false, error_message: expect.stringContaining("not a finite number") });
    const huge = await json(await run("math_evaluate", { expression: `1${"0".repeat(400)} * 2` }));
    expect(huge).toMatchObject({ success: false, error_message: expect.stringContaining("not a finite number") });
    const digits = await json(await run("math_evaluate", { expression: `${"1".repeat(999)}e` }));
    expect(digits.success).toBe(false);
    const signs = await json(await run("math_evaluate", { expression: `${"-".repeat(999)}1` }));
    expect(signs).toMatchObject({ success: true, result: { result: -1 } });

    await expectProblem(await run("datetime", { operation: "format", date: "9".repeat(65) }), 422, "validation_failed");
    const badDate = await json(await run("datetime", { operation: "format", date: "9".repeat(64) }));
    expect(badDate).toMatchObject({ success: false, error_message: expect.stringContaining("is not a date") });
    for (const unit of ["days", "months", "years"]) {
      const far = await json(await run("datetime", { operation: "add", date: "2026-01-01T00:00:00Z", amount: 1e300, unit }));
      expect(far, unit).toMatchObject({ success: false, error_message: expect.stringContaining("outside the range of dates") });
    }
    await expectProblem(await run("uuid_generate", { count: 1_000_000 }), 422, "validation_failed");
  });

  it("http_request, memory_store and wait: long, many and deep arguments are refused before any work", async () => {
    const run = await toolRunner();
    const url = `${env.TEST_FAKE_URL}/s/pathological/things/1`;
    const query = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`q${i}`, i]));
    const withQuery = await json(await run("http_request", { url: `${url}?q0=old&keep=1`, query }));
    expect(withQuery).toMatchObject({ success: true, result: { status: 200 } });
    const sent = new URL(withQuery.result.url);
    expect(sent.searchParams.getAll("q0")).toEqual(["0"]);
    expect(sent.searchParams.get("keep")).toBe("1");
    expect(sent.searchParams.get("q99")).toBe("99");

    const manyQuery = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`q${i}`, i]));
    const refusedQuery = await expectProblem(await run("http_request", { url, query: manyQuery }), 422, "validation_failed");
    expect(refusedQuery.errors?.[0]?.message).toBe("At most 100 query parameters.");
    const manyHeaders = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`x-h${i}`, "v"]));
    await expectProblem(await run("http_request", { url, headers: manyHeaders }), 422, "validation_failed");
    await expectProblem(await run("http_request", { url, method: "POST", body: DEEP_ARGUMENT }), 422, "validation_failed");
    await expectProblem(await run("http_request", { url: `http://${"a".repeat(5_000)}.example/` }), 422, "validation_failed");

    await expectProblem(await run("memory_store", { operation: "set", key: "k".repeat(10_000), value: 1 }), 422, "validation_failed");
    await expectProblem(await run("memory_store", { operation: "set", key: "deep", value: DEEP_ARGUMENT }), 422, "validation_failed");
    const wide = await json(await run("memory_store", { operation: "set", key: "wide", value: "w".repeat(70_000) }));
    expect(wide).toMatchObject({ success: false, error_message: "The value is larger than 64 KiB." });
    await expectProblem(await run("memory_store", { operation: "list", prefix: "%".repeat(10_000) }), 422, "validation_failed");
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
    const deep = await expectProblem(
      await call("/v1/workflows/test-substitution", { token: key, json: { parameters: { x: DEEP_ARGUMENT }, context: {} } }),
      422,
      "validation_failed",
    );
    expect(deep.detail).toBe("The value is nested deeper than 64 levels.");
    const deepContext = await expectProblem(
      await call("/v1/workflows/test-condition", {
        token: key,
        json: { condition: { field: "input.deep", operator: "equals", value: [1] }, context: { input: { deep: DEEP_ARGUMENT } } },
      }),
      422,
      "validation_failed",
    );
    expect(deepContext.detail).toContain("nested deeper than 64 levels");

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

  it("refuses a request body nested thousands of levels deep (a condition of nots) with 422, not a crashed validator", async () => {
    const { key } = await newApiKey(await newUser());
    const levels = 50_000;
    const condition = `${'{"not":'.repeat(levels)}{"field":"x","operator":"exists"}${"}".repeat(levels)}`;
    const raw = `{"workflow_name":"deep","description":"deep","steps":[{"id":"c","type":"condition","condition":${condition},"then":[]}]}`;
    const body = await expectProblem(
      await call("/v1/workflows", { token: key, body: raw, headers: { "Content-Type": "application/json" } }),
      422,
      "validation_failed",
    );
    expect(body.errors?.[0]).toMatchObject({ location: "body", message: "The value is nested deeper than 128 levels." });
    // A deep array anywhere in a body is refused the same way, whatever the route.
    const array = await expectProblem(
      await call("/v1/workflows/test-substitution", { token: key, json: { parameters: { x: DEEP }, context: {} } }),
      422,
      "validation_failed",
    );
    expect(array.detail).toBe("The body nests too deeply.");
    // A modest chain is still a valid condition.
    let modest: unknown = { field: "x", operator: "exists" };
    for (let i = 0; i < 20; i++) modest = { not: modest };
    const created = await call("/v1/workflows", {
      token: key,
      json: { workflow_name: "fine", description: "twenty nots", steps: [{ id: "c", type: "condition", condition: modest, then: [] }] },
    });
    expect(created.status).toBe(201);
  });
});
