import type { JsonSchema } from "../../lib/json-schema";
import { isPlainObject } from "../common";
import type { FieldKind, FormField } from "./form-field";
import { textOf } from "./form-values";

/**
 * How the JSON Schema of an object (a platform's config, a tool's input) becomes form fields.
 * Simple values get their own control; anything nested is typed as JSON. The service's own
 * validation stays the judge: the form only turns text into JSON values.
 */
export interface SchemaFormOptions {
  /** Controls are named `<prefix>.<property>`; ids are `<prefix>-<property>`, or `<prefix>-<n>`. */
  prefix: string;
  /** By index where property names may hold anything (an MCP server's tools). */
  ids: "name" | "index";
  /** "words": base_url is shown as "Base URL"; "names": as base_url. */
  labels: "words" | "names";
  /** Trim what is typed (settings); free text keeps its spaces. */
  trim?: boolean;
  /** Strings that may run long get a textarea; otherwise every string is one line. */
  longText?: boolean;
  /** Maps of names to strings as rows of inputs; otherwise they are typed as JSON. */
  pairs?: boolean;
  /** The properties the platform keeps secret; given, secrets are also told by the schema and by name. */
  secrets?: readonly string[];
  /** Without properties, or with too many, the whole value is one JSON field of these names. */
  whole?: { input: string; id: string; label: string };
}

/** Past this many properties one JSON field is easier than a long form. */
const MAX_FIELDS = 40;
/** Strings longer than this may hold paragraphs. */
const LONG_TEXT = 300;
/** Names that hold credentials even where a schema forgets to say so. */
const SECRET_NAME = /token|key|password|secret/i;
const WORDS: Record<string, string> = { url: "URL", id: "ID", api: "API", http: "HTTP", mcp: "MCP" };

export function schemaFields(schema: JsonSchema, options: SchemaFormOptions): FormField[] {
  const properties = schema.properties;
  const count = isPlainObject(properties) ? Object.keys(properties).length : 0;
  if (options.whole && (!isPlainObject(properties) || count > MAX_FIELDS)) return [wholeField(options.whole, options.trim)];
  if (!isPlainObject(properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : []);
  return Object.entries(properties).map(([name, raw], index) => {
    const declared: JsonSchema = isPlainObject(raw) ? raw : {};
    const property = withoutNull(declared);
    const kind = kindOf(property, options);
    return {
      name,
      label: options.labels === "words" ? labelOf(name) : name,
      input: `${options.prefix}.${name}`,
      id: `${options.prefix}-${options.ids === "name" ? name : index}`,
      kind,
      required: required.has(name),
      secret: options.secrets !== undefined && (options.secrets.includes(name) || isSecret(declared) || isSecret(property) || SECRET_NAME.test(name)),
      trim: options.trim === true,
      description: typeof property.description === "string" ? property.description : undefined,
      options: kind === "select" ? (property.enum as string[]) : undefined,
      initial: textOf(kind, property.default),
      maxLength: typeof property.maxLength === "number" ? property.maxLength : undefined,
    };
  });
}

/** "base_url" → "Base URL", "api_key" → "API key". */
export function labelOf(name: string): string {
  const text = name
    .split("_")
    .map((word) => WORDS[word] ?? word)
    .join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const wholeField = (whole: NonNullable<SchemaFormOptions["whole"]>, trim = false): FormField => ({
  name: "",
  label: whole.label,
  input: whole.input,
  id: whole.id,
  kind: "json",
  required: true,
  secret: false,
  trim,
  initial: "{}",
});

const isSecret = (schema: JsonSchema) => schema["x-secret"] === true || schema.writeOnly === true;

/** `anyOf: [X, {type: "null"}]` and `type: [X, "null"]` are shown as X (left empty: not sent). */
function withoutNull(schema: JsonSchema): JsonSchema {
  const union = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (union) {
    const rest = union.filter((s) => !(isPlainObject(s) && s.type === "null"));
    if (rest.length === 1 && isPlainObject(rest[0])) return { description: schema.description, default: schema.default, ...rest[0] };
  }
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== "null");
    if (types.length === 1) return { ...schema, type: types[0] };
  }
  return schema;
}

function kindOf(schema: JsonSchema, options: SchemaFormOptions): FieldKind {
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.every((v) => typeof v === "string")) return "select";
  switch (schema.type) {
    case "string":
      if (schema.format === "uri") return "url";
      return options.longText && !(typeof schema.maxLength === "number" && schema.maxLength <= LONG_TEXT) ? "textarea" : "text";
    case "number":
    case "integer":
      return schema.type;
    case "boolean":
      return "checkbox";
    case "array":
      return isPlainObject(schema.items) && schema.items.type === "string" && !Array.isArray(schema.items.enum) ? "lines" : "json";
    case "object": {
      const values = schema.additionalProperties;
      return options.pairs && isPlainObject(values) && values.type === "string" && !schema.properties ? "pairs" : "json";
    }
    case undefined:
      return schema.anyOf || schema.oneOf || schema.properties ? "json" : "any";
    default:
      return "json";
  }
}
