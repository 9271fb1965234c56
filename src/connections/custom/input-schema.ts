// An operation's parameter and body schemas, their references resolved by local-refs.ts (shared objects,
// cycles for recursive types), copied into plain bounded JSON Schema for a tool's input: at most
// MAX_SCHEMA_DEPTH levels of nesting and MAX_SCHEMA_NODES subschemas per tool; past either, or on a
// cycle, a subschema becomes `{}` (anything), so a hostile document cannot make the copy explode.
// Shared plain values (a large `enum` referenced from many places) are copied once per use, so the
// whole document also has a running byte budget: the copy stops with a 422 as soon as what it has
// written would not fit in a stored declaration, before memory grows with the fan-out.

import { HubError } from "../../core/errors";
import type { JsonSchema } from "../../lib/json-schema";
import { utf8Bytes } from "./utf8-bytes";

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

/** What every tool's schemas of one document may write in all: the room a stored declaration has. */
export class DocumentBudget {
  bytes = 0;
  constructor(readonly maxBytes: number) {}

  /** Counts `bytes` more written; past the limit, the document is refused (422) naming it. */
  spend(bytes: number): void {
    this.bytes += bytes;
    if (this.bytes > this.maxBytes)
      throw new HubError(
        "validation_failed",
        `The document's schemas are too large to keep: once their references are expanded they pass ${this.maxBytes} bytes.`,
        { errors: [{ location: "body", field: "openapi", message: `Expanded schemas are limited to ${this.maxBytes} bytes.` }] },
      );
  }
}

/** A budget shared by every schema of one tool, drawing on the document's. */
export class SchemaBudget {
  nodes = 0;
  constructor(readonly document: DocumentBudget = new DocumentBudget(Number.POSITIVE_INFINITY)) {}
}

/** The bytes a plain value takes as JSON; an object or array shared by many schemas is measured once. */
const sizes = new WeakMap<object, number>();
function jsonBytes(value: unknown): number {
  if (value === null || typeof value !== "object") return utf8Bytes(JSON.stringify(value) ?? "null");
  let size = sizes.get(value);
  if (size === undefined) {
    size = utf8Bytes(JSON.stringify(value) ?? "null");
    sizes.set(value, size);
  }
  return size;
}

/** `schema` (an OpenAPI 3.0 or 3.1 Schema Object) as JSON Schema 2020-12, bounded. */
export function toInputSchema(schema: unknown, budget: SchemaBudget, path: object[] = []): JsonSchema {
  if (typeof schema === "boolean") return schema ? {} : { not: {} };
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return {};
  if (path.includes(schema) || path.length >= MAX_SCHEMA_DEPTH || ++budget.nodes > MAX_SCHEMA_NODES) return {};
  const source = schema as Record<string, unknown>;
  const inner = [...path, schema];
  const out: JsonSchema = {};
  budget.document.spend(2);
  for (const key of PLAIN) {
    if (source[key] === undefined || (key === "required" && !Array.isArray(source[key]))) continue;
    // Counted before the copy, so an oversized value is refused without being copied.
    budget.document.spend(key.length + 4 + jsonBytes(source[key]));
    out[key] = structuredClone(source[key]);
  }
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
      budget.document.spend(utf8Bytes(name) + 4);
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
