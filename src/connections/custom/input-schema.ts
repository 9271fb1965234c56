// An operation's parameter and body schemas, dereferenced by the OpenAPI parser (shared objects,
// cycles for recursive types), copied into plain bounded JSON Schema for a tool's input: at most
// MAX_SCHEMA_DEPTH levels of nesting and MAX_SCHEMA_NODES subschemas per tool; past either, or on a
// cycle, a subschema becomes `{}` (anything), so a hostile document cannot make the copy explode.

import type { JsonSchema } from "../../lib/json-schema";

export const MAX_SCHEMA_DEPTH = 12;
export const MAX_SCHEMA_NODES = 2_000;

/** Keywords kept as they are (values, not subschemas). */
const PLAIN = [
  "type",
  "title",
  "description",
  "format",
  "enum",
  "const",
  "default",
  "multipleOf",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "required",
];
const ONE = ["items", "additionalProperties", "not", "contains", "propertyNames"];
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems"];

/** A budget shared by every schema of one tool. */
export class SchemaBudget {
  nodes = 0;
}

/** `schema` (an OpenAPI 3.0 or 3.1 Schema Object) as JSON Schema 2020-12, bounded. */
export function toInputSchema(schema: unknown, budget: SchemaBudget, path: object[] = []): JsonSchema {
  if (typeof schema === "boolean") return schema ? {} : { not: {} };
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return {};
  if (path.includes(schema) || path.length >= MAX_SCHEMA_DEPTH || ++budget.nodes > MAX_SCHEMA_NODES) return {};
  const source = schema as Record<string, unknown>;
  const inner = [...path, schema];
  const out: JsonSchema = {};
  for (const key of PLAIN) if (source[key] !== undefined && !(key === "required" && !Array.isArray(source[key]))) out[key] = structuredClone(source[key]);
  // OpenAPI 3.0: `nullable`, and exclusive bounds as booleans beside minimum/maximum.
  if (source.nullable === true && typeof out.type === "string") out.type = [out.type, "null"];
  for (const [flag, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    const value = source[flag];
    if (typeof value === "number") out[flag] = value;
    else if (value === true && typeof source[bound] === "number") {
      out[flag] = source[bound];
      delete out[bound];
    }
  }
  if (source.properties && typeof source.properties === "object") {
    const properties: Record<string, JsonSchema> = {};
    for (const [name, property] of Object.entries(source.properties as Record<string, unknown>)) {
      // Read-only properties are the server's to set: a request never carries them.
      if (property && typeof property === "object" && (property as { readOnly?: unknown }).readOnly === true) continue;
      properties[name] = toInputSchema(property, budget, inner);
    }
    out.properties = properties;
    if (Array.isArray(out.required)) out.required = (out.required as unknown[]).filter((name) => typeof name === "string" && name in properties);
  }
  for (const key of ONE) {
    const value = source[key];
    if (typeof value === "boolean") out[key] = value;
    else if (value && typeof value === "object") out[key] = toInputSchema(value, budget, inner);
  }
  for (const key of LIST) {
    const value = source[key];
    if (Array.isArray(value)) out[key] = value.slice(0, 50).map((item) => toInputSchema(item, budget, inner));
  }
  return out;
}
