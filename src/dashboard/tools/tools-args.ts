import type { JsonSchema } from "../../tools/types";
import { isPlainObject, parseJsonField } from "../common";

/**
 * How a tool's input JSON Schema becomes form fields, and the posted form becomes arguments again.
 * Simple values get their own control; anything nested is typed as JSON. The tool's own
 * validation (the executor's) stays the judge: this only converts text into JSON values.
 */
export type FieldKind = "string" | "text" | "number" | "integer" | "boolean" | "enum" | "lines" | "json" | "any";

export interface ArgField {
  /** The property's name in the arguments; "" for the single whole-arguments field. */
  name: string;
  /** The form control's name and element id. */
  input: string;
  id: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  options?: string[];
  /** The value the form starts with (the schema's default), as text. */
  initial: string;
}

/** What was typed, by form control name: shown again when the run is refused. */
export type FieldValues = Record<string, string>;

/** Past this many properties one JSON field is easier than a long form. */
const MAX_FIELDS = 40;
const LONG_TEXT = 300;

const WHOLE: ArgField = { name: "", input: "arguments", id: "arguments-json", kind: "json", required: true, initial: "{}" };

export function fieldsOf(schema: JsonSchema): ArgField[] {
  const properties = schema.properties;
  if (!isPlainObject(properties) || Object.keys(properties).length > MAX_FIELDS) return [WHOLE];
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : []);
  return Object.entries(properties).map(([name, raw], index) => {
    const property = withoutNull(isPlainObject(raw) ? raw : {});
    const kind = kindOf(property);
    return {
      name,
      input: `arg.${name}`,
      id: `arg-${index}`,
      kind,
      required: required.has(name),
      description: typeof property.description === "string" ? property.description : undefined,
      options: kind === "enum" ? (property.enum as string[]) : undefined,
      initial: initialText(kind, property.default),
    };
  });
}

/** The form's values for each field: what was posted, else the schema's default. */
export function valuesFrom(fields: ArgField[], form: Record<string, unknown>): FieldValues {
  const values: FieldValues = {};
  for (const field of fields) {
    const posted = form[field.input];
    values[field.input] = field.kind === "boolean" ? (posted === "true" ? "true" : "") : typeof posted === "string" ? posted : "";
  }
  return values;
}

export const initialValues = (fields: ArgField[]): FieldValues => Object.fromEntries(fields.map((f) => [f.input, f.initial]));

/** The arguments the values stand for, or a message per form control that could not be read. */
export function argumentsFrom(
  fields: ArgField[],
  values: FieldValues,
): { ok: true; args: Record<string, unknown> } | { ok: false; errors: Record<string, string> } {
  const args: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const text = values[field.input] ?? "";
    const read = readValue(field, text);
    if ("error" in read) errors[field.input] = read.error;
    else if (field.name === "")
      return isPlainObject(read.value) ? { ok: true, args: read.value } : { ok: false, errors: { [field.input]: "Enter a JSON object." } };
    else if (read.value !== undefined) args[field.name] = read.value;
  }
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, args };
}

/** Empty optional fields are left out, so the tool's own defaults apply. */
function readValue(field: ArgField, text: string): { value: unknown } | { error: string } {
  const trimmed = text.trim();
  switch (field.kind) {
    case "boolean":
      // An unticked box is false only when the tool expects a value there.
      return { value: text === "true" ? true : field.required || field.initial !== "" ? false : undefined };
    case "number":
    case "integer": {
      if (!trimmed) return { value: undefined };
      const number = Number(trimmed);
      if (!Number.isFinite(number)) return { error: "Enter a number." };
      if (field.kind === "integer" && !Number.isInteger(number)) return { error: "Enter a whole number." };
      return { value: number };
    }
    case "lines": {
      const lines = text
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter(Boolean);
      return { value: lines.length || field.required ? lines : undefined };
    }
    case "json":
    case "any": {
      if (!trimmed) return { value: undefined };
      // In the API's body a property sits in `arguments` (depth 2); the whole-arguments field is `arguments` itself.
      const parsed = parseJsonField(trimmed, "This", { depthInBody: field.name === "" ? 1 : 2 });
      if (parsed.ok) return { value: parsed.value };
      // A field of any type takes plain text as a string; a nested one must be JSON.
      return field.kind === "any" && parsed.reason === "syntax" ? { value: text } : { error: parsed.message };
    }
    default:
      return { value: text === "" ? undefined : text };
  }
}

/** `anyOf: [X, {type: "null"}]` and `type: [X, "null"]` are shown as X (left empty: not sent). */
function withoutNull(schema: Record<string, unknown>): Record<string, unknown> {
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

function kindOf(schema: Record<string, unknown>): FieldKind {
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.every((v) => typeof v === "string")) return "enum";
  switch (schema.type) {
    case "string":
      return typeof schema.maxLength === "number" && schema.maxLength <= LONG_TEXT ? "string" : "text";
    case "number":
    case "integer":
    case "boolean":
      return schema.type;
    case "array":
      return isPlainObject(schema.items) && schema.items.type === "string" && !Array.isArray(schema.items.enum) ? "lines" : "json";
    case undefined:
      return schema.anyOf || schema.oneOf || schema.properties ? "json" : "any";
    default:
      return "json";
  }
}

function initialText(kind: FieldKind, value: unknown): string {
  if (value === undefined || value === null) return "";
  if (kind === "boolean") return value === true ? "true" : "";
  if (kind === "lines" && Array.isArray(value)) return value.join("\n");
  if (typeof value === "string" && kind !== "json") return value;
  if (typeof value === "number") return String(value);
  return JSON.stringify(value, null, 2);
}
