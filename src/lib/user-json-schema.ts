import { Validator, type OutputUnit, type Schema } from "@cfworker/json-schema";
import { RE2JS } from "re2js";

/**
 * JSON Schemas that users and MCP servers hand us (an llm step's `schema`, an MCP tool's input
 * schema) are validated with @cfworker/json-schema, which runs `pattern` and `patternProperties`
 * through the JavaScript regex engine: `^(a+)+$` against 31 characters stalls the isolate for
 * seconds. Here such schemas are checked before use (size, nesting, every pattern compiles in
 * RE2) and validated with two guards: the patterns run on RE2 (linear time) and every subschema
 * evaluation counts against a budget, since `anyOf` chains through `$ref` can multiply work
 * exponentially while the schema stays small.
 */

/** Subschema evaluations one validation may make; a costlier one fails instead of stalling. */
export const VALIDATION_BUDGET = 20_000;
/** Element comparisons `uniqueItems` may make (it compares every pair). */
export const UNIQUE_ITEMS_BUDGET = 500_000;
const MAX_SCHEMA_NODES = 10_000;
const MAX_SCHEMA_DEPTH = 64;
const MAX_PATTERN_LENGTH = 1_000;

export interface SchemaProblem {
  /** JSON pointer of the offending keyword inside the schema. */
  pointer: string;
  message: string;
}

/** Keywords whose value is one subschema, a list of them, or a map of them. */
const ONE = ["additionalProperties", "additionalItems", "unevaluatedProperties", "unevaluatedItems", "contains", "not", "if", "then", "else", "propertyNames"];
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems"];
const MAP = ["properties", "patternProperties", "dependentSchemas", "$defs", "definitions", "dependencies"];

/** Problems that make a schema unusable here: too large, too deep, or a pattern RE2 cannot run. */
export function schemaProblems(schema: unknown): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  let nodes = 0;
  const visit = (node: unknown, pointer: string, depth: number) => {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return;
    if (++nodes > MAX_SCHEMA_NODES) {
      if (nodes === MAX_SCHEMA_NODES + 1) problems.push({ pointer, message: `The schema has more than ${MAX_SCHEMA_NODES} subschemas.` });
      return;
    }
    if (depth > MAX_SCHEMA_DEPTH) {
      problems.push({ pointer, message: `The schema nests deeper than ${MAX_SCHEMA_DEPTH} levels.` });
      return;
    }
    const record = node as Record<string, unknown>;
    if (typeof record.pattern === "string") checkPattern(record.pattern, `${pointer}/pattern`, problems);
    const patternKeys = record.patternProperties;
    if (typeof patternKeys === "object" && patternKeys !== null) {
      for (const key of Object.keys(patternKeys)) checkPattern(key, `${pointer}/patternProperties`, problems);
    }
    const visitList = (list: unknown, base: string) => {
      if (Array.isArray(list)) for (const [i, sub] of list.entries()) visit(sub, `${base}/${i}`, depth + 1);
    };
    for (const key of ONE) visit(record[key], `${pointer}/${key}`, depth + 1);
    for (const key of LIST) visitList(record[key], `${pointer}/${key}`);
    for (const key of MAP) {
      const map = record[key];
      if (typeof map === "object" && map !== null && !Array.isArray(map)) {
        for (const [name, sub] of Object.entries(map)) visit(sub, `${pointer}/${key}/${name}`, depth + 1);
      }
    }
    const items = record.items;
    if (Array.isArray(items)) visitList(items, `${pointer}/items`);
    else visit(items, `${pointer}/items`, depth + 1);
  };
  visit(schema, "", 0);
  return problems;
}

function checkPattern(pattern: string, pointer: string, problems: SchemaProblem[]) {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    problems.push({ pointer, message: `The pattern is longer than ${MAX_PATTERN_LENGTH} characters.` });
    return;
  }
  try {
    linearPattern(pattern);
  } catch (error) {
    problems.push({
      pointer,
      message: `The pattern cannot be checked in linear time (RE2 syntax: no lookaround or backreferences): ${(error as Error).message}`,
    });
  }
}

const compiled = new Map<string, RE2JS>();

function linearPattern(source: string): RE2JS {
  let re = compiled.get(source);
  if (!re) {
    re = RE2JS.compile(source);
    if (compiled.size >= 1_000) compiled.clear();
    compiled.set(source, re);
  }
  return re;
}

/** What the validator builds with `new RegExp(pattern, "u")` while a validation runs: an RE2 matcher. */
class LinearRegExp {
  private readonly re: RE2JS;
  constructor(source: string) {
    // Also reached for values checked against `format: "regex"`: a long one is no pattern we run.
    if (String(source).length > MAX_PATTERN_LENGTH) throw new SyntaxError("pattern too long");
    this.re = linearPattern(String(source));
  }
  test(input: string): boolean {
    return this.re.matcher(String(input)).find();
  }
}

class BudgetSpent extends Error {}

/** The count of subschema evaluations of the validation under way (validations are synchronous). */
let spent = 0;
let metering = false;

/**
 * The schema with every subschema behind a proxy that counts its evaluations: the validator
 * reads `$ref` first each time it evaluates a subschema, so that read is the tick.
 */
function metered<T>(node: T, seen = new WeakMap<object, unknown>()): T {
  if (typeof node !== "object" || node === null) return node;
  const known = seen.get(node);
  if (known) return known as T;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(node) ? [] : {};
  const proxy = Array.isArray(node)
    ? copy
    : new Proxy(copy, {
        get(target, key, receiver) {
          if (key === "$ref" && metering && ++spent > VALIDATION_BUDGET) throw new BudgetSpent();
          return Reflect.get(target, key, receiver);
        },
      });
  seen.set(node, proxy);
  for (const [key, value] of Object.entries(node)) (copy as Record<string, unknown>)[key] = metered(value, seen);
  return proxy as T;
}

export interface SchemaCheck {
  valid: boolean;
  errors: OutputUnit[];
}

/**
 * A validator for a schema that passed `schemaProblems`. `validate` never runs a backtracking
 * regex and gives up (invalid, with an error saying why) past VALIDATION_BUDGET evaluations.
 */
export class UserSchemaValidator {
  private readonly validator: Validator;
  private readonly comparesItems: boolean;

  constructor(schema: unknown) {
    this.comparesItems = JSON.stringify(schema ?? null).includes('"uniqueItems":true');
    this.validator = new Validator(metered(schema) as Schema, "2020-12", false);
  }

  validate(instance: unknown): SchemaCheck {
    // `uniqueItems` compares every pair of an array's items, out of reach of the evaluation budget.
    if (this.comparesItems && pairwiseCost(instance) > UNIQUE_ITEMS_BUDGET) {
      return refusal("#", "The value has arrays too long to check for unique items.");
    }
    const nativeRegExp = globalThis.RegExp;
    spent = 0;
    metering = true;
    // The library builds its pattern regexes with the global constructor during the (synchronous)
    // call, so nothing else can run while it is swapped.
    globalThis.RegExp = LinearRegExp as unknown as RegExpConstructor;
    try {
      return this.validator.validate(instance);
    } catch (error) {
      if (error instanceof BudgetSpent) return refusal("#", `Checking this value against the schema takes more than ${VALIDATION_BUDGET} steps.`);
      // A pattern that RE2 cannot compile (a schema that skipped schemaProblems) refuses the value.
      return refusal("#", `The schema cannot be checked: ${(error as Error).message}`);
    } finally {
      globalThis.RegExp = nativeRegExp;
      metering = false;
    }
  }
}

/** Roughly what comparing every pair of items of every array in `value` costs, in item nodes. */
function pairwiseCost(value: unknown): number {
  let cost = 0;
  const nodesOf = (node: unknown): number => {
    if (typeof node !== "object" || node === null) return 1;
    const children = Array.isArray(node) ? node : Object.values(node);
    let nodes = 1;
    for (const child of children) nodes += nodesOf(child);
    if (Array.isArray(node) && node.length > 1) cost += ((node.length * (node.length - 1)) / 2) * Math.ceil(nodes / node.length);
    return nodes;
  };
  nodesOf(value);
  return cost;
}

function refusal(instanceLocation: string, error: string): SchemaCheck {
  return { valid: false, errors: [{ instanceLocation, keyword: "schema", keywordLocation: "#", error }] };
}
