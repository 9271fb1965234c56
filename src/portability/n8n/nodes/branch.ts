import type { Condition, Operator } from "../../../lib/conditions";
import type { NodeContext, NodeResult } from "../types";

/** n8n's filter operations (IF v2, Switch v3, Filter) → the hub's operators; `not` for those it has only the other way. */
const OPERATIONS: Record<string, { operator: Operator; not?: true; value?: unknown; length?: true }> = {
  equals: { operator: "equals" },
  notEquals: { operator: "not_equals" },
  gt: { operator: "greater_than" },
  lt: { operator: "less_than" },
  gte: { operator: "greater_than_or_equal" },
  lte: { operator: "less_than_or_equal" },
  after: { operator: "greater_than" },
  before: { operator: "less_than" },
  afterOrEquals: { operator: "greater_than_or_equal" },
  beforeOrEquals: { operator: "less_than_or_equal" },
  contains: { operator: "contains" },
  notContains: { operator: "not_contains" },
  startsWith: { operator: "starts_with" },
  notStartsWith: { operator: "starts_with", not: true },
  endsWith: { operator: "ends_with" },
  notEndsWith: { operator: "ends_with", not: true },
  regex: { operator: "matches" },
  notRegex: { operator: "matches", not: true },
  exists: { operator: "exists" },
  notExists: { operator: "not_exists" },
  empty: { operator: "is_empty" },
  notEmpty: { operator: "is_not_empty" },
  true: { operator: "equals", value: true },
  false: { operator: "equals", value: false },
  lengthEquals: { operator: "equals", length: true },
  lengthNotEquals: { operator: "not_equals", length: true },
  lengthGt: { operator: "greater_than", length: true },
  lengthLt: { operator: "less_than", length: true },
  lengthGte: { operator: "greater_than_or_equal", length: true },
  lengthLte: { operator: "less_than_or_equal", length: true },
};

/** IF v1's and Switch v1/v2's operation names, in the words of the filter's. */
const OLD_OPERATIONS: Record<string, string> = {
  equal: "equals",
  notEqual: "notEquals",
  larger: "gt",
  smaller: "lt",
  largerEqual: "gte",
  smallerEqual: "lte",
  isEmpty: "empty",
  isNotEmpty: "notEmpty",
};

const UNARY = new Set(["exists", "notExists", "empty", "notEmpty", "true", "false"]);

/** A placeholder with one more filter (`{{x}}` → `{{x | length}}`); text around placeholders cannot take one. */
const withFilter = (field: string, filter: string) => (/^\{\{[^{}]*\}\}$/.test(field) ? `${field.slice(0, -2)} | ${filter}}}` : null);

/** One comparison: `left` read as a field (a placeholder, or a computed one for a constant). */
function comparison(ctx: NodeContext, left: unknown, operation: string, right: unknown, caseSensitive = true): Condition | null {
  const mapped = OPERATIONS[OLD_OPERATIONS[operation] ?? operation];
  if (!mapped) {
    ctx.warn(`The comparison "${operation}" has no hub operator; the condition is left out.`);
    return null;
  }
  const translated = ctx.value(left);
  let field = typeof translated === "string" && translated.includes("{{") ? translated : ctx.computed(JSON.stringify(translated ?? null));
  let value: unknown = mapped.value ?? (UNARY.has(operation) ? undefined : ctx.value(right));
  if (mapped.length) field = withFilter(field, "length") ?? field;
  if (!caseSensitive && typeof value === "string") {
    field = withFilter(field, "lower") ?? field;
    value = value.includes("{{") ? (withFilter(value, "lower") ?? value) : value.toLowerCase();
  }
  if (mapped.operator === "matches" && typeof value === "string") value = re2Pattern(value);
  const condition: Condition = { field, operator: mapped.operator, ...(value !== undefined ? { value } : {}) };
  return mapped.not ? { not: condition } : condition;
}

/** n8n takes `/pattern/flags` or a bare pattern; the hub takes a bare RE2 pattern, `(?i)` for case-insensitive. */
function re2Pattern(text: string): string {
  const literal = /^\/([\s\S]*)\/([a-z]*)$/.exec(text);
  if (!literal) return text;
  return `${literal[2]!.includes("i") ? "(?i)" : ""}${literal[1]}`;
}

const combined = (parts: Condition[], combinator: string): Condition | null =>
  parts.length === 0 ? null : parts.length === 1 ? parts[0]! : combinator === "or" ? { or: parts } : { and: parts };

/** A filter parameter (IF v2, a Switch v3 rule): `{conditions: [{leftValue, rightValue, operator: {type, operation}}], combinator, options}`. */
export function filterCondition(ctx: NodeContext, filter: unknown): Condition | null {
  const f = (filter ?? {}) as { conditions?: Record<string, unknown>[]; combinator?: string; options?: { caseSensitive?: boolean } };
  const caseSensitive = f.options?.caseSensitive !== false;
  const parts = (f.conditions ?? [])
    .map((c) => comparison(ctx, c.leftValue, String((c.operator as { operation?: string })?.operation ?? "equals"), c.rightValue, caseSensitive))
    .filter((c): c is Condition => c !== null);
  return combined(parts, f.combinator ?? "and");
}

/** IF v1: `conditions: {string|number|boolean|dateTime: [{value1, operation, value2}]}`, combineOperation all|any. */
function ifV1Condition(ctx: NodeContext, p: Record<string, unknown>): Condition | null {
  const groups = (p.conditions ?? {}) as Record<string, { value1?: unknown; operation?: string; value2?: unknown }[]>;
  const defaults: Record<string, string> = { number: "smaller", string: "equal", boolean: "equal", dateTime: "after" };
  const parts = Object.entries(groups)
    .flatMap(([type, list]) =>
      (list ?? []).map((c) => comparison(ctx, c.value1, c.operation ?? defaults[type] ?? "equal", c.value2 ?? (type === "boolean" ? false : ""))),
    )
    .filter((c): c is Condition => c !== null);
  return combined(parts, p.combineOperation === "any" ? "or" : "and");
}

/** IF: true → output 0 (`then`), false → output 1 (`else`). */
export function ifNode(ctx: NodeContext): NodeResult {
  const p = ctx.node.parameters ?? {};
  const condition = (ctx.node.typeVersion ?? 1) >= 2 ? filterCondition(ctx, p.conditions) : ifV1Condition(ctx, p);
  if (!condition) {
    ctx.warn("No condition could be taken over: the IF node is left out and its true branch always runs.");
    return { steps: [], branch: { cases: [], fallback: 0 } };
  }
  return { steps: [], branch: { cases: [{ condition, output: 0, stepId: ctx.stepId }], fallback: 1 } };
}

/**
 * Switch: its rules in order as nested conditions (the first that holds picks its output), the
 * fallback output last. n8n can send an item to every output whose rule holds; the hub takes the first.
 */
export function switchNode(ctx: NodeContext): NodeResult {
  const p = ctx.node.parameters ?? {};
  const options = (p.options ?? {}) as { fallbackOutput?: unknown; allMatchingOutputs?: boolean };
  if (options.allMatchingOutputs) ctx.warn("Sending to all matching outputs is not kept: the first rule that holds picks the branch.");
  const version = ctx.node.typeVersion ?? 1;
  let rules: { condition: Condition | null; output: number }[];
  let fallback: number | null;
  if (p.mode === "expression") {
    const outputs = Number(p.numberOutputs ?? 4);
    rules = Array.from({ length: outputs }, (_, i) => ({ condition: comparison(ctx, p.output, "equals", i), output: i }));
    fallback = null;
  } else if (version >= 3) {
    const values = ((p.rules as { values?: { conditions?: unknown }[] })?.values ?? []) as { conditions?: unknown }[];
    rules = values.map((rule, i) => ({ condition: filterCondition(ctx, rule.conditions), output: i }));
    fallback = options.fallbackOutput === "extra" ? values.length : typeof options.fallbackOutput === "number" ? options.fallbackOutput : null;
  } else {
    const old = ((p.rules as { rules?: { operation?: string; value2?: unknown; output?: number }[] })?.rules ?? []) as {
      operation?: string;
      value2?: unknown;
      output?: number;
    }[];
    rules = old.map((rule, i) => ({ condition: comparison(ctx, p.value1, rule.operation ?? "equal", rule.value2), output: rule.output ?? i }));
    fallback = typeof p.fallbackOutput === "number" && p.fallbackOutput >= 0 ? p.fallbackOutput : null;
  }
  const cases = rules
    .filter((rule): rule is { condition: Condition; output: number } => rule.condition !== null)
    .map((rule, i) => ({ ...rule, stepId: i === 0 ? ctx.stepId : ctx.extraId(`case${i + 1}`) }));
  return { steps: [], branch: { cases, fallback } };
}
