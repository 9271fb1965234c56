import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluateCondition, type Condition } from "../../src/lib/conditions";
import { substitute } from "../../src/lib/template";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";

const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/);
const jsonValue = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)));
/** Strings that contain no placeholder. */
const plainString = fc.string({ maxLength: 30 }).filter((s) => !s.includes("{{"));

describe("substitution (properties)", () => {
  it("a string that is exactly one placeholder takes the value's own type", () => {
    fc.assert(
      fc.property(name, jsonValue, (key, value) => {
        const { value: out, substitutions } = substitute({ field: `{{ ${key} }}` }, { [key]: value });
        expect(out).toEqual({ field: value });
        expect(substitutions).toEqual([`{{${key}}}`]);
      }),
    );
  });

  it("leaves values without placeholders unchanged and reports nothing", () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }).filter((v) => !JSON.stringify(v).includes("{{")),
        (value) => {
          const { value: out, substitutions } = substitute(value, { anything: 1 });
          expect(out).toEqual(value);
          expect(substitutions).toEqual([]);
        },
      ),
    );
  });

  it("leaves unknown variables as written and does not list them", () => {
    fc.assert(
      // A backslash right before `{{` is the escape for a literal placeholder (tested on its own).
      fc.property(
        name,
        plainString.filter((text) => !text.endsWith("\\")),
        (key, around) => {
          const text = `${around}{{${key}}}${around}`;
          const { value, substitutions } = substitute([text], {});
          expect(value).toEqual([text]);
          expect(substitutions).toEqual([]);
        },
      ),
    );
  });

  it("stringifies placeholders inside longer strings, recursing through arrays and objects", () => {
    fc.assert(
      fc.property(name, fc.oneof(fc.integer(), fc.boolean(), plainString), plainString, (key, value, prefix) => {
        const { value: out } = substitute({ nested: [{ text: `${prefix}>{{${key}}}<` }] }, { [key]: value });
        expect(out).toEqual({ nested: [{ text: `${prefix}>${String(value)}<` }] });
      }),
    );
  });

  it("follows dotted paths and array indexes", () => {
    const { value } = substitute({ to: "{{contact.emails.1}}", n: "{{contact.score}}" }, { contact: { emails: ["a@x.io", "b@x.io"], score: 7 } });
    expect(value).toEqual({ to: "b@x.io", n: 7 });
  });
});

const operand = fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.string({ maxLength: 8 }), fc.boolean(), fc.constant(null));

describe("conditions (properties)", () => {
  it("not_equals is the negation of equals, and numbers equal their numeric strings", () => {
    fc.assert(
      fc.property(operand, operand, (a, b) => {
        const eq = evaluateCondition({ field: "a", operator: "equals", value: b }, { a }).result;
        const ne = evaluateCondition({ field: "a", operator: "not_equals", value: b }, { a }).result;
        expect(ne).toBe(!eq);
      }),
    );
    fc.assert(
      fc.property(fc.integer(), (n) => {
        expect(evaluateCondition({ field: "a", operator: "equals", value: String(n) }, { a: n }).result).toBe(true);
      }),
    );
  });

  it("orders numbers like arithmetic does", () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer(), (a, b) => {
        const check = (operator: "greater_than" | "less_than" | "greater_than_or_equal" | "less_than_or_equal") =>
          evaluateCondition({ field: "a", operator, value: b }, { a }).result;
        expect(check("greater_than")).toBe(a > b);
        expect(check("less_than")).toBe(a < b);
        expect(check("greater_than_or_equal")).toBe(a >= b);
        expect(check("less_than_or_equal")).toBe(a <= b);
      }),
    );
  });

  it("obeys De Morgan for and/or/not, and `in` agrees with equals on some item", () => {
    const leaf = fc.record({
      field: fc.constant("x"),
      operator: fc.constantFrom("equals", "greater_than", "contains", "is_empty", "exists" as const),
      value: operand,
    }) as fc.Arbitrary<Condition>;
    fc.assert(
      fc.property(leaf, leaf, operand, (p, q, x) => {
        const context = { x };
        const notAnd = evaluateCondition({ not: { and: [p, q] } }, context).result;
        const orNots = evaluateCondition({ or: [{ not: p }, { not: q }] }, context).result;
        expect(notAnd).toBe(orNots);
      }),
    );
    fc.assert(
      fc.property(operand, fc.array(operand, { maxLength: 5 }), (x, list) => {
        const inList = evaluateCondition({ field: "x", operator: "in", value: list }, { x }).result;
        const some = list.some((item) => evaluateCondition({ field: "x", operator: "equals", value: item }, { x }).result);
        expect(inList).toBe(some);
      }),
    );
  });

  it("reports what it compared: the field's value and the substituted expected value", () => {
    expect(
      evaluateCondition({ field: "{{input.score}}", operator: "greater_than_or_equal", value: "{{threshold}}" }, { input: { score: 80 }, threshold: 75 }),
    ).toEqual({
      result: true,
      evaluated_value: 80,
      expected_value: 75,
      operator: "greater_than_or_equal",
    });
    expect(evaluateCondition({ field: "lead.email", operator: "not_exists" }, { lead: {} }).result).toBe(true);
    expect(evaluateCondition({ field: "tags", operator: "contains", value: "vip" }, { tags: ["new", "vip"] }).result).toBe(true);
    expect(evaluateCondition({ field: "email", operator: "matches", value: "@example\\.com$" }, { email: "ada@example.com" }).result).toBe(true);
    expect(evaluateCondition({ field: "s", operator: "matches", value: "(a+)+$" }, { s: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!" }).result).toBe(false);
    expect(evaluateCondition({ field: "d", operator: "less_than", value: "2026-12-01" }, { d: "2026-11-22T10:00:00Z" }).result).toBe(true);
  });
});

describe("test endpoints", () => {
  it("POST /v1/workflows/test-substitution answers the documented fields", async () => {
    const { key } = await newApiKey(await newUser());
    const response = await call("/v1/workflows/test-substitution", {
      token: key,
      json: {
        parameters: { to: "{{ lead.email }}", subject: "Hi {{lead.name}} {{missing}}", count: "{{n}}" },
        context: { lead: { email: "ada@example.com", name: "Ada" }, n: 3 },
      },
    });
    expect(await json(response)).toEqual({
      original_parameters: { to: "{{ lead.email }}", subject: "Hi {{lead.name}} {{missing}}", count: "{{n}}" },
      substituted_parameters: { to: "ada@example.com", subject: "Hi Ada {{missing}}", count: 3 },
      substitutions_made: ["{{lead.email}}", "{{lead.name}}", "{{n}}"],
      missing: ["{{missing}}"],
    });
    const filtered = await json(
      await call("/v1/workflows/test-substitution", {
        token: key,
        json: {
          parameters: { text: 'Welcome aboard, {{input.first_name | default: "there"}}!', tag: '{{input.tags | join: "; " | upper}}' },
          context: { input: { tags: ["vip", "new"] } },
        },
      }),
    );
    expect(filtered).toMatchObject({ substituted_parameters: { text: "Welcome aboard, there!", tag: "VIP; NEW" }, missing: [] });
    const typo = await call("/v1/workflows/test-substitution", { token: key, json: { parameters: { a: "{{x | uppercase}}" }, context: { x: "a" } } });
    expect((await expectProblem(typo, 422, "validation_failed")).detail).toContain('unknown filter "uppercase"');
  });

  it("POST /v1/workflows/test-condition answers the documented fields, composites included", async () => {
    const { key } = await newApiKey(await newUser());
    const single = await json(
      await call("/v1/workflows/test-condition", {
        token: key,
        json: { condition: { field: "input.score", operator: "greater_than", value: 50 }, context: { input: { score: 72 } } },
      }),
    );
    expect(single).toEqual({ result: true, evaluated_value: 72, expected_value: 50, operator: "greater_than" });
    const composite = await json(
      await call("/v1/workflows/test-condition", {
        token: key,
        json: { condition: { and: [{ field: "a", operator: "equals", value: 1 }, { not: { field: "b", operator: "is_empty" } }] }, context: { a: 1, b: "x" } },
      }),
    );
    expect(composite).toMatchObject({ result: true, operator: "and", evaluated_value: [1, "x"] });
    const bad = await call("/v1/workflows/test-condition", { token: key, json: { condition: { field: "a", operator: "roughly" }, context: {} } });
    expect(bad.status).toBe(422);
  });
});
