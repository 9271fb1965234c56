import type { Platform } from "../../connections/platforms/types";
import type { FieldError } from "../../core/errors";
import { type JsonSchema, inputJsonSchema } from "../../lib/json-schema";
import { isPlainObject, parseJsonField } from "../common";

/**
 * How a platform's config JSON Schema (the one GET /v1/connections/platforms publishes) becomes
 * form fields, and a posted form becomes a config again. The service's validation stays the judge:
 * this only turns text into JSON values. Secret values are read from the form but never kept in
 * the values a page shows again.
 */
export type ConfigKind = "text" | "url" | "number" | "integer" | "checkbox" | "select" | "pairs" | "json";

export interface ConfigField {
  /** The property's name in the config. */
  name: string;
  label: string;
  /** The form control's name (for "pairs", the prefix of each row's controls) and element id. */
  input: string;
  id: string;
  kind: ConfigKind;
  secret: boolean;
  required: boolean;
  description?: string;
  options?: string[];
  /** The value the form starts with (the schema's default), as text. */
  initial: string;
  maxLength?: number;
}

/** What was typed, by form control name, secrets left out: what a page may show again. */
export type ConfigValues = Record<string, string>;

/** Rows offered for a map of names to values (an MCP server's extra headers). */
export const PAIR_ROWS = 3;

/** Names that hold credentials even where a schema forgets to say so. */
const SECRET_NAME = /token|key|password|secret/i;
const WORDS: Record<string, string> = { url: "URL", id: "ID", api: "API", http: "HTTP", mcp: "MCP" };

export function configFieldsOf(platform: Platform): ConfigField[] {
  const schema = inputJsonSchema(platform.config);
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(properties).map(([name, raw]) => {
    const property: JsonSchema = isPlainObject(raw) ? raw : {};
    const kind = kindOf(property);
    return {
      name,
      label: labelOf(name),
      input: `config.${name}`,
      id: `config-${name}`,
      kind,
      secret: platform.secretFields.includes(name) || property["x-secret"] === true || property.writeOnly === true || SECRET_NAME.test(name),
      required: required.has(name),
      description: typeof property.description === "string" ? property.description : undefined,
      options: kind === "select" ? (property.enum as string[]) : undefined,
      initial: initialText(property.default),
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

export const pairInputs = (field: ConfigField, row: number) => ({ name: `${field.input}.${row}.name`, value: `${field.input}.${row}.value` });

export const initialValues = (fields: ConfigField[]): ConfigValues => Object.fromEntries(fields.map((field) => [field.input, field.initial]));

/** A saved config as form values, for editing: secrets left out (their inputs start empty). */
export function valuesOfConfig(fields: ConfigField[], config: Record<string, unknown>): ConfigValues {
  const values: ConfigValues = {};
  for (const field of fields) {
    const value = config[field.name];
    if (field.secret || value === undefined || value === null) continue;
    if (field.kind === "pairs" && isPlainObject(value)) {
      Object.entries(value)
        .slice(0, PAIR_ROWS)
        .forEach(([key, text], row) => {
          values[pairInputs(field, row).name] = key;
          values[pairInputs(field, row).value] = String(text);
        });
    } else values[field.input] = typeof value === "object" ? JSON.stringify(value) : value === false ? "" : String(value);
  }
  return values;
}

/**
 * The config a posted form stands for, what of it may be shown again, and a message per field
 * that could not be read. Empty optional fields are left out, so the platform's defaults apply.
 */
export function configFrom(fields: ConfigField[], form: Record<string, unknown>) {
  const text = (name: string) => (typeof form[name] === "string" ? (form[name] as string).trim() : "");
  const config: Record<string, unknown> = {};
  const values: ConfigValues = {};
  const errors: Record<string, string> = {};
  let secretsEntered = false;
  for (const field of fields) {
    if (field.kind === "pairs") {
      const map: Record<string, string> = {};
      for (let row = 0; row < PAIR_ROWS; row++) {
        const inputs = pairInputs(field, row);
        const [key, value] = [text(inputs.name), text(inputs.value)];
        values[inputs.name] = key;
        if (field.secret) secretsEntered ||= value !== "";
        else values[inputs.value] = value;
        if (key && value) map[key] = value;
        else if (key || value) errors[field.input] = "Give each row both a name and a value.";
      }
      if (Object.keys(map).length) config[field.name] = map;
      continue;
    }
    const posted = text(field.input);
    if (field.secret) secretsEntered ||= posted !== "";
    else values[field.input] = field.kind === "checkbox" ? (posted === "true" ? "true" : "") : posted;
    const read = readValue(field, posted);
    if ("error" in read) errors[field.input] = read.error;
    else if (read.value !== undefined) config[field.name] = read.value;
  }
  return { config, values, errors, secretsEntered };
}

function readValue(field: ConfigField, text: string): { value: unknown } | { error: string } {
  switch (field.kind) {
    case "checkbox":
      // Unticked is false only where the platform expects a value.
      return { value: text === "true" ? true : field.required || field.initial !== "" ? false : undefined };
    case "number":
    case "integer": {
      if (!text) return { value: undefined };
      const number = Number(text);
      if (!Number.isFinite(number)) return { error: "Enter a number." };
      if (field.kind === "integer" && !Number.isInteger(number)) return { error: "Enter a whole number." };
      return { value: number };
    }
    case "json": {
      if (!text) return { value: undefined };
      // A setting sits in the API body's `config` object: two levels down.
      const parsed = parseJsonField(text, "This", { depthInBody: 2 });
      return parsed.ok ? { value: parsed.value } : { error: parsed.message };
    }
    default:
      return { value: text === "" ? undefined : text };
  }
}

/**
 * A service refusal placed beside the fields it names (`config.<field>…`); what names no field
 * (the platform, the whole config) is returned to show above the form.
 */
export function placeErrors(fields: ConfigField[], problems: FieldError[]): { errors: Record<string, string>; unplaced: string[] } {
  const errors: Record<string, string> = {};
  const unplaced: string[] = [];
  for (const problem of problems) {
    const path = problem.field.replace(/^config\.?/, "");
    const field = fields.find((f) => path === f.name || path.startsWith(`${f.name}.`));
    if (!field || !problem.field.startsWith("config")) {
      unplaced.push(problem.message);
      continue;
    }
    const text = path === field.name ? problem.message : `${path.slice(field.name.length + 1)}: ${problem.message}`;
    errors[field.input] = errors[field.input] ? `${errors[field.input]} ${text}` : text;
  }
  return { errors, unplaced };
}

function kindOf(schema: JsonSchema): ConfigKind {
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.every((v) => typeof v === "string")) return "select";
  switch (schema.type) {
    case "string":
      return schema.format === "uri" ? "url" : "text";
    case "number":
    case "integer":
      return schema.type;
    case "boolean":
      return "checkbox";
    case "object":
      return isPlainObject(schema.additionalProperties) && schema.additionalProperties.type === "string" && !schema.properties ? "pairs" : "json";
    default:
      return "json";
  }
}

function initialText(value: unknown): string {
  if (value === undefined || value === null || value === false) return "";
  if (value === true) return "true";
  return typeof value === "string" || typeof value === "number" ? String(value) : JSON.stringify(value);
}
