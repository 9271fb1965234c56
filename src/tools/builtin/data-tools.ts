import { z } from "@hono/zod-openapi";
import { getPath, setPath } from "../../lib/json-path";
import { SubstitutionTooLarge, findPlaceholders, stringify, substitute } from "../../lib/template";
import { ToolError, defineBuiltin } from "../types";

export const jsonTransform = defineBuiltin({
  name: "json_transform",
  title: "Transform JSON",
  description:
    "Reshapes JSON data: `get` one path, `pick` several paths into a new object, `set` a path, `merge` objects, `filter` an array by a field, `map` an array to chosen fields, `sort` an array by a field, or `count` items.",
  input: z.object({
    operation: z.enum(["get", "pick", "set", "merge", "filter", "map", "sort", "count"]),
    data: z.unknown(),
    path: z.string().max(500).optional().describe("get/set: the path; filter/sort: the field to look at."),
    paths: z.record(z.string(), z.string().max(500)).optional().describe("pick/map: output name → path."),
    value: z.unknown().optional().describe("set: the new value; filter: the value to compare with."),
    operator: z.enum(["equals", "not_equals", "contains", "greater_than", "less_than", "exists"]).default("equals"),
    with: z.array(z.record(z.string(), z.unknown())).max(50).optional().describe("merge: objects merged over data, left to right."),
    descending: z.boolean().default(false),
  }),
  async run(_ctx, args) {
    const list = () => {
      if (!Array.isArray(args.data)) throw new ToolError(`${args.operation} needs data to be an array.`);
      return args.data as unknown[];
    };
    const pick = (item: unknown) => Object.fromEntries(Object.entries(args.paths ?? {}).map(([name, path]) => [name, getPath(item, path).value ?? null]));
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
      case "filter":
        return { value: list().filter((item) => compare(getPath(item, args.path ?? ""), args.operator, args.value)) };
      case "sort": {
        const sorted = [...list()].sort((a, b) => order(getPath(a, args.path ?? "").value, getPath(b, args.path ?? "").value));
        return { value: args.descending ? sorted.reverse() : sorted };
      }
    }
  },
});

function compare(hit: { found: boolean; value: unknown }, operator: string, expected: unknown): boolean {
  const actual = hit.value;
  switch (operator) {
    case "exists":
      return hit.found && actual !== null;
    case "not_equals":
      return JSON.stringify(actual) !== JSON.stringify(expected);
    case "contains":
      return Array.isArray(actual) ? actual.some((v) => JSON.stringify(v) === JSON.stringify(expected)) : stringify(actual).includes(stringify(expected));
    case "greater_than":
      return Number(actual) > Number(expected);
    case "less_than":
      return Number(actual) < Number(expected);
    default:
      return JSON.stringify(actual) === JSON.stringify(expected);
  }
}

function order(a: unknown, b: unknown): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  return stringify(a).localeCompare(stringify(b));
}

export const textTemplate = defineBuiltin({
  name: "text_template",
  title: "Render text template",
  description:
    "Fills `{{name}}` placeholders (dotted paths allowed) in a text from `values`. Unknown placeholders are left as written and listed in `missing`.",
  input: z.object({
    template: z.string().max(100_000),
    values: z.record(z.string(), z.unknown()).default({}),
  }),
  async run(_ctx, args) {
    const { value, substitutions } = tooLargeAsToolError(() => substitute(args.template, args.values));
    const text = stringify(value);
    // Whatever placeholders are left after substitution named nothing in `values`.
    const missing = [...new Set(findPlaceholders(text).map((p) => p.path))];
    return { text, substitutions, missing };
  },
});

export const uuidTool = defineBuiltin({
  name: "uuid_generate",
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
    if (error instanceof SubstitutionTooLarge) throw new ToolError(error.message);
    throw error;
  }
}
