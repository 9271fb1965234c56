import { z } from "@hono/zod-openapi";
import { getKeys, getPath, setPath, splitPath } from "../../lib/json-path";
import { nestsDeeperThan, tooDeepMessage } from "../../lib/json-depth";
import { PlaceholderInvalid, SubstitutionTooLarge, stringify, substitute } from "../../lib/template";
import { ToolError, defineBuiltin } from "../types";
import { atMostEntries, shallowJson } from "./bounded-json";

const MAX_PATHS = 100;

export const jsonTransform = defineBuiltin({
  name: "json_transform",
  effect: "read",
  title: "Transform JSON",
  description:
    "Reshapes JSON data: `get` one path, `pick` several paths into a new object, `set` a path, `merge` objects, `filter` an array by a field, `map` an array to chosen fields, `sort` an array by a field, or `count` items.",
  input: z.object({
    operation: z.enum(["get", "pick", "set", "merge", "filter", "map", "sort", "count"]),
    data: shallowJson(),
    path: z.string().max(500).optional().describe("get/set: the path; filter/sort: the field to look at."),
    paths: z
      .record(z.string(), z.string().max(500))
      .optional()
      .refine(atMostEntries(MAX_PATHS), `At most ${MAX_PATHS} paths.`)
      .describe("pick/map: output name → path."),
    value: shallowJson().optional().describe("set: the new value; filter: the value to compare with."),
    operator: z.enum(["equals", "not_equals", "contains", "greater_than", "less_than", "exists"]).default("equals"),
    with: z
      .array(z.record(z.string(), z.unknown()))
      .max(50)
      .optional()
      .refine((objects) => !nestsDeeperThan(objects), tooDeepMessage())
      .describe("merge: objects merged over data, left to right."),
    descending: z.boolean().default(false),
  }),
  async run(_ctx, args) {
    const list = () => {
      if (!Array.isArray(args.data)) throw new ToolError(`${args.operation} needs data to be an array.`);
      return args.data as unknown[];
    };
    // Paths are split once, not once per item: lists can hold hundreds of thousands of items.
    const keys = splitPath(args.path ?? "");
    const picks = Object.entries(args.paths ?? {}).map(([name, path]) => [name, splitPath(path)] as const);
    const pick = (item: unknown) => Object.fromEntries(picks.map(([name, path]) => [name, getKeys(item, path).value ?? null]));
    switch (args.operation) {
      case "get":
        return { value: getPath(args.data, args.path ?? "").value ?? null };
      case "pick":
        return { value: pick(args.data) };
      case "set":
        return { value: setPath(args.data, args.path ?? "", args.value) };
      case "merge":
        return { value: Object.assign({}, args.data, ...(args.with ?? [])) };
      case "map":
        return { value: list().map(pick) };
      case "count":
        return { value: Array.isArray(args.data) ? args.data.length : Object.keys(args.data ?? {}).length };
      case "filter": {
        const test = comparison(args.operator, args.value);
        return { value: list().filter((item) => test(getKeys(item, keys))) };
      }
      case "sort": {
        // Each item's sort key is looked up and serialised once, not once per comparison.
        const sorted = list()
          .map((item) => sortKey(item, getKeys(item, keys).value))
          .sort(order)
          .map(({ item }) => item);
        return { value: args.descending ? sorted.reverse() : sorted };
      }
    }
  },
});

/** A test of one looked-up value against `expected`, which is serialised once for the whole list. */
function comparison(operator: string, expected: unknown): (hit: { found: boolean; value: unknown }) => boolean {
  const expectedJson = JSON.stringify(expected);
  const expectedText = stringify(expected);
  switch (operator) {
    case "exists":
      return (hit) => hit.found && hit.value !== null;
    case "not_equals":
      return ({ value }) => JSON.stringify(value) !== expectedJson;
    case "contains":
      return ({ value }) => (Array.isArray(value) ? value.some((v) => JSON.stringify(v) === expectedJson) : stringify(value).includes(expectedText));
    case "greater_than":
      return ({ value }) => Number(value) > Number(expected);
    case "less_than":
      return ({ value }) => Number(value) < Number(expected);
    default:
      return ({ value }) => JSON.stringify(value) === expectedJson;
  }
}

interface SortKey {
  item: unknown;
  number: number | undefined;
  text: string;
}

const sortKey = (item: unknown, key: unknown): SortKey => ({ item, number: typeof key === "number" ? key : undefined, text: stringify(key) });

/** Numbers numerically when both keys are numbers, otherwise by their text. */
function order(a: SortKey, b: SortKey): number {
  if (a.number !== undefined && b.number !== undefined) return a.number - b.number;
  return a.text.localeCompare(b.text);
}

export const textTemplate = defineBuiltin({
  name: "text_template",
  effect: "read",
  title: "Render text template",
  description:
    "Fills `{{name}}` placeholders (dotted paths allowed) in a text from `values`. Unknown placeholders are left as written and listed in `missing`.",
  input: z.object({
    template: z.string().max(100_000),
    values: z
      .record(z.string(), z.unknown())
      .refine((values) => !nestsDeeperThan(values), tooDeepMessage())
      .default({}),
  }),
  async run(_ctx, args) {
    const { value, substitutions, missing } = tooLargeAsToolError(() => substitute(args.template, args.values));
    // Listed by path, as the tool always has: the placeholders `values` had nothing for.
    return { text: stringify(value), substitutions, missing: missing.map((placeholder) => placeholder.slice(2, -2)) };
  },
});

export const uuidTool = defineBuiltin({
  name: "uuid_generate",
  effect: "read",
  title: "Generate UUIDs",
  description: "Returns one or more random (version 4) UUIDs.",
  input: z.object({ count: z.number().int().min(1).max(100).default(1) }),
  async run(_ctx, args) {
    const uuids = Array.from({ length: args.count }, () => crypto.randomUUID());
    return { uuid: uuids[0], uuids };
  },
});

function tooLargeAsToolError<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof SubstitutionTooLarge || error instanceof PlaceholderInvalid) throw new ToolError(error.message);
    throw error;
  }
}
