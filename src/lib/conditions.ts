import { RE2JS } from "re2js";
import { getPath } from "./json-path";
import { MAX_NESTING, nestsDeeperThan } from "./json-depth";
import { SubstitutionTooLarge, substitute } from "./template";

export const OPERATORS = [
  "equals",
  "not_equals",
  "greater_than",
  "greater_than_or_equal",
  "less_than",
  "less_than_or_equal",
  "contains",
  "not_contains",
  "starts_with",
  "ends_with",
  "in",
  "not_in",
  "exists",
  "not_exists",
  "is_empty",
  "is_not_empty",
  "matches",
] as const;
export type Operator = (typeof OPERATORS)[number];

export type Condition = { field: string; operator: Operator; value?: unknown } | { and: Condition[] } | { or: Condition[] } | { not: Condition };

export interface ConditionResult {
  result: boolean;
  evaluated_value: unknown;
  expected_value: unknown;
  operator: string;
}

const MAX_PATTERN = 200;
const MAX_SUBJECT = 10_000;

/**
 * Evaluates a condition against a context. `field` is a context path (`input.score`) or a
 * `{{…}}` template; `value` is substituted too. Composites combine their parts; their
 * evaluated and expected values list the parts'.
 */
export function evaluateCondition(condition: Condition, context: unknown): ConditionResult {
  if ("and" in condition) {
    const parts = condition.and.map((c) => evaluateCondition(c, context));
    return {
      result: parts.every((p) => p.result),
      evaluated_value: parts.map((p) => p.evaluated_value),
      expected_value: parts.map((p) => p.expected_value),
      operator: "and",
    };
  }
  if ("or" in condition) {
    const parts = condition.or.map((c) => evaluateCondition(c, context));
    return {
      result: parts.some((p) => p.result),
      evaluated_value: parts.map((p) => p.evaluated_value),
      expected_value: parts.map((p) => p.expected_value),
      operator: "or",
    };
  }
  if ("not" in condition) {
    const inner = evaluateCondition(condition.not, context);
    return { ...inner, result: !inner.result, operator: `not ${inner.operator}` };
  }
  const { found, value: actual } = resolveField(condition.field, context);
  // Comparing and reporting walk the value recursively; substitute() already bounds `value`.
  if (nestsDeeperThan(actual)) throw new SubstitutionTooLarge(`The value of ${condition.field.slice(0, 100)} is nested deeper than ${MAX_NESTING} levels.`);
  const expected = condition.value === undefined ? null : substitute(condition.value, context).value;
  return {
    result: compare(condition.operator, found, actual, expected),
    evaluated_value: actual ?? null,
    expected_value: expected,
    operator: condition.operator,
  };
}

function resolveField(field: string, context: unknown): { found: boolean; value: unknown } {
  if (field.includes("{{")) {
    const { value, substitutions } = substitute(field, context);
    // An unknown variable is "not found" (null), exactly as the path form reports it.
    return substitutions.length > 0 ? { found: true, value } : { found: false, value: null };
  }
  return getPath(context, field);
}

export function compare(operator: Operator, found: boolean, actual: unknown, expected: unknown): boolean {
  switch (operator) {
    case "equals":
      return equal(actual, expected);
    case "not_equals":
      return !equal(actual, expected);
    case "greater_than":
      return order(actual, expected) > 0;
    case "greater_than_or_equal":
      return order(actual, expected) >= 0;
    case "less_than":
      return order(actual, expected) < 0;
    case "less_than_or_equal":
      return order(actual, expected) <= 0;
    case "contains":
      return contains(actual, expected);
    case "not_contains":
      return !contains(actual, expected);
    case "starts_with":
      return typeof actual === "string" && actual.startsWith(String(expected ?? ""));
    case "ends_with":
      return typeof actual === "string" && actual.endsWith(String(expected ?? ""));
    case "in":
      return Array.isArray(expected) && expected.some(equalTo(actual));
    case "not_in":
      return !(Array.isArray(expected) && expected.some(equalTo(actual)));
    case "exists":
      return found && actual !== null && actual !== undefined;
    case "not_exists":
      return !(found && actual !== null && actual !== undefined);
    case "is_empty":
      return isEmpty(actual);
    case "is_not_empty":
      return !isEmpty(actual);
    case "matches":
      return matches(actual, expected);
  }
}

const numeric = (value: unknown): number | undefined => {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  return undefined;
};

/** Numbers and numeric strings compare as numbers ("5" equals 5); everything else structurally. */
export function equal(a: unknown, b: unknown): boolean {
  return equalTo(b)(a);
}

/**
 * `equal(·, fixed)` for comparing many values with one: the fixed side is converted once, so
 * `in` over a long list costs the list's size, not the list's length times the value's size.
 */
function equalTo(fixed: unknown): (other: unknown) => boolean {
  const fixedNumber = numeric(fixed);
  let fixedCanonical: string | undefined;
  return (other) => {
    const otherNumber = fixedNumber === undefined ? undefined : numeric(other);
    if (otherNumber !== undefined) return otherNumber === fixedNumber;
    fixedCanonical ??= canonical(fixed);
    return canonical(other) === fixedCanonical;
  };
}

function canonical(value: unknown): string {
  if (value === undefined) return "null";
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Numbers numerically, ISO dates by time, strings by code point; incomparable values give NaN, which no comparison passes. */
function order(a: unknown, b: unknown): number {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined) return x - y;
  if (typeof a === "string" && typeof b === "string") {
    const [ta, tb] = [Date.parse(a), Date.parse(b)];
    if (/^\d{4}-\d{2}-\d{2}/.test(a) && /^\d{4}-\d{2}-\d{2}/.test(b) && !Number.isNaN(ta) && !Number.isNaN(tb)) return ta - tb;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  return Number.NaN;
}

function contains(actual: unknown, expected: unknown): boolean {
  if (typeof actual === "string") return actual.includes(String(expected ?? ""));
  if (Array.isArray(actual)) return actual.some(equalTo(expected));
  if (actual && typeof actual === "object") return typeof expected === "string" && Object.hasOwn(actual, expected);
  return false;
}

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "object") return Object.keys(value).length === 0;
  return false;
}

/**
 * `matches` runs on RE2 (linear time whatever the pattern or input), never on the backtracking
 * JavaScript engine, so a hostile pattern cannot burn the CPU. RE2 syntax: no backreferences.
 */
function matches(actual: unknown, pattern: unknown): boolean {
  if (typeof actual !== "string" && typeof actual !== "number") return false;
  const source = String(pattern ?? "");
  if (source.length > MAX_PATTERN) return false;
  try {
    return RE2JS.compile(source).matcher(String(actual).slice(0, MAX_SUBJECT)).find();
  } catch {
    return false;
  }
}

/** Why a `matches` pattern would be refused, for validation before a run. */
export function patternProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN) return `Patterns are limited to ${MAX_PATTERN} characters.`;
  try {
    RE2JS.compile(pattern);
  } catch (error) {
    return `Not a valid RE2 regular expression: ${(error as Error).message}`;
  }
  return undefined;
}
