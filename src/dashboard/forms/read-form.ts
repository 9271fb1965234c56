import { isPlainObject, parseJsonField } from "../common";
import { type FieldErrors, type FormField, type FormValues, PAIR_ROWS, pairInputs } from "./form-field";

export interface FormReading {
  /** The object the form stands for; empty optional fields are left out, so the service's defaults apply. */
  value: Record<string, unknown>;
  /** What was typed, secrets left out: what the page may show again. */
  values: FormValues;
  /** A message per form control that could not be read. */
  errors: FieldErrors;
  /** A secret was typed, which a page shown again will not hold. */
  secretsEntered: boolean;
}

type Read = { value: unknown } | { error: string };

/** A posted form read back through its fields. */
export function readForm(fields: FormField[], form: Record<string, unknown>): FormReading {
  const textAt = (field: FormField, name: string) => {
    const posted = typeof form[name] === "string" ? (form[name] as string) : "";
    return field.trim ? posted.trim() : posted;
  };
  let value: Record<string, unknown> = {};
  const values: FormValues = {};
  const errors: FieldErrors = {};
  let secretsEntered = false;
  for (const field of fields) {
    if (field.kind === "pairs") {
      const map: Record<string, string> = {};
      for (let row = 0; row < PAIR_ROWS; row++) {
        const inputs = pairInputs(field, row);
        const [key, text] = [textAt(field, inputs.name).trim(), textAt(field, inputs.value).trim()];
        values[inputs.name] = key;
        if (field.secret) secretsEntered ||= text !== "";
        else values[inputs.value] = text;
        if (key && text) setOwn(map, key, text);
        else if (key || text) errors[field.input] = "Give each row both a name and a value.";
      }
      if (Object.keys(map).length) setOwn(value, field.name, map);
      continue;
    }
    const text = textAt(field, field.input);
    if (field.secret) secretsEntered ||= text !== "";
    else values[field.input] = field.kind === "checkbox" ? (text === "true" ? "true" : "") : text;
    const read = readValue(field, text);
    if ("error" in read) errors[field.input] = read.error;
    else if (field.name === "") {
      if (isPlainObject(read.value)) value = read.value;
      else errors[field.input] = "Enter a JSON object.";
    } else if (read.value !== undefined) setOwn(value, field.name, read.value);
  }
  return { value, values, errors, secretsEntered };
}

function readValue(field: FormField, text: string): Read {
  const trimmed = text.trim();
  switch (field.kind) {
    case "checkbox":
      // Unticked is false only where a value is expected.
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
      // A property sits two levels down in the API's body (`config.x`, `arguments.x`); the whole value one.
      const parsed = parseJsonField(trimmed, "This", { depthInBody: field.name === "" ? 1 : 2 });
      if (parsed.ok) return { value: parsed.value };
      // A field of no stated type takes plain text as a string; a nested one must be JSON.
      return field.kind === "any" && parsed.reason === "syntax" ? { value: text } : { error: parsed.message };
    }
    default:
      return { value: text === "" ? undefined : text };
  }
}

/** A property named by the schema or the person (even `__proto__`) is kept as data. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
