import { describe, expect, it } from "vitest";
import { UserSchemaValidator, VALIDATION_BUDGET, schemaProblems } from "../../src/lib/user-json-schema";
import { call, newApiKey, newUser } from "../helpers/api";
import { FAKE, newScenario, openai, script } from "../conversations/helpers";
import { execute, newWorkflow, settled } from "../helpers/runs";

// Schemas from users and MCP servers must not stall the isolate: the JavaScript regex engine
// backtracks, so `^(a+)+$` against a few dozen characters takes seconds and a few thousand never
// ends. Each case below would hang the test (and the runtime) if the native engine ran it.
const EVIL = "^(a+)+$";
const SUBJECT = `${"a".repeat(5_000)}!`;

/** `depth` levels, each an anyOf of two references to the next: 2^depth paths through a tiny schema. */
function exponentialSchema(depth: number) {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
  defs[`d${depth}`] = { type: "string" };
  return { $defs: defs, $ref: "#/$defs/d0" };
}

describe("user-given JSON Schemas", () => {
  it("runs `pattern` and `patternProperties` in linear time, with the same answers", () => {
    const strings = new UserSchemaValidator({ type: "string", pattern: EVIL });
    expect(strings.validate(SUBJECT)).toMatchObject({ valid: false, errors: [expect.objectContaining({ keyword: "pattern" })] });
    expect(strings.validate("aaaa").valid).toBe(true);

    const keyed = new UserSchemaValidator({ type: "object", patternProperties: { [EVIL]: { type: "number" } } });
    expect(keyed.validate({ [SUBJECT]: "not checked: the key does not match" }).valid).toBe(true);
    expect(keyed.validate({ aaa: "x" }).valid).toBe(false);
    expect(keyed.validate({ aaa: 1 }).valid).toBe(true);
    // The native engine is back in place after each validation.
    expect(/a+/.test("aa")).toBe(true);
    expect(/^b$/.test("b")).toBe(true);
  });

  it("gives up on a validation past its budget instead of stalling", () => {
    const result = new UserSchemaValidator(exponentialSchema(30)).validate(42);
    expect(result.valid).toBe(false);
    expect(result.errors[0]!.error).toContain(`more than ${VALIDATION_BUDGET} steps`);
    // An ordinary schema over a large value stays well inside the budget.
    const items = Array.from({ length: 2_000 }, (_, i) => ({ id: i, email: `u${i}@example.com` }));
    const list = new UserSchemaValidator({
      type: "array",
      items: { type: "object", required: ["id"], properties: { id: { type: "integer" }, email: { type: "string", pattern: "^[^@]+@[^@]+$" } } },
    });
    expect(list.validate(items).valid).toBe(true);
    // uniqueItems compares every pair: a long array is refused rather than compared.
    const unique = new UserSchemaValidator({ type: "array", uniqueItems: true });
    expect(unique.validate(items).errors[0]!.error).toContain("too long to check for unique items");
    expect(unique.validate(items.slice(0, 100)).valid).toBe(true);
    expect(unique.validate([items[0], items[0]]).valid).toBe(false);
  });

  it("names what cannot be checked: lookaround, backreferences, oversized or too deep schemas", () => {
    expect(schemaProblems({ properties: { password: { type: "string", pattern: "^(?=.*[A-Z]).+$" } } })).toEqual([
      { pointer: "/properties/password/pattern", message: expect.stringContaining("linear time") },
    ]);
    expect(schemaProblems({ patternProperties: { "^(a)\\1$": {} } })[0]!.pointer).toBe("/patternProperties");
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 70; i++) deep = { items: deep };
    expect(schemaProblems(deep)[0]!.message).toContain("nests deeper");
    // A `pattern` that is a property name or a const value is data, not a keyword.
    expect(schemaProblems({ properties: { pattern: { const: { pattern: "(?=x)" } } } })).toEqual([]);
    expect(schemaProblems({ type: "string", pattern: EVIL })).toEqual([]);
  });
});

describe("an llm step's schema", () => {
  it("is refused at save when it cannot be checked in linear time", async () => {
    const { key } = await newApiKey(await newUser());
    const response = await call("/v1/workflows", {
      token: key,
      json: {
        workflow_name: "Lookahead",
        description: "A schema with lookahead",
        steps: [{ id: "ask", type: "llm", prompt: "x", output: "json", schema: { type: "string", pattern: "^(?=a).*$" } }],
      },
    });
    expect(response.status).toBe(422);
    expect(JSON.stringify(await response.json())).toContain("steps.0.schema");
  });

  it("checks the model's answer against a catastrophic pattern without stalling, and fails the step", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("evilschema");
    await call("/v1/connections", {
      token: key,
      json: { platform: "openai", name: "Model", config: { api_key: "sk-test-0123456789abcdef", base_url: `${FAKE()}/s/${scenario}`, model: "fake-gpt" } },
    });
    await script(scenario, [openai.text(JSON.stringify({ name: SUBJECT }))]);
    const workflow = await newWorkflow(key, {
      steps: [
        {
          id: "ask",
          type: "llm",
          provider: "openai",
          prompt: "A name, please.",
          output: "json",
          schema: { type: "object", properties: { name: { type: "string", pattern: EVIL } } },
        },
      ],
    });
    const execution = await settled(key, await execute(key, workflow.id, {}));
    expect(execution.status).toBe("failed");
    expect(execution.steps[0].error_message).toContain("does not match the schema");
  });

  it("reads an answer with an unclosed fence and a long run of spaces without backtracking", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("fence");
    await call("/v1/connections", {
      token: key,
      json: { platform: "openai", name: "Model", config: { api_key: "sk-test-0123456789abcdef", base_url: `${FAKE()}/s/${scenario}`, model: "fake-gpt" } },
    });
    // A backtracking fence regex took seconds on 5,000 spaces; an indexOf scan takes microseconds.
    await script(scenario, [openai.text(`\`\`\`${" ".repeat(20_000)}x`), openai.text('```json\n{"ok": true}\n```')]);
    const workflow = await newWorkflow(key, {
      steps: [{ id: "ask", type: "llm", provider: "openai", prompt: "JSON, please.", output: "json", retry: { max_attempts: 2, delay_seconds: 0 } }],
    });
    const execution = await settled(key, await execute(key, workflow.id, {}));
    expect(execution.status).toBe("succeeded");
    expect(execution.steps[0]).toMatchObject({ attempts: 2, result: { json: { ok: true } } });
  });
});
