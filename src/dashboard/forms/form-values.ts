import { isPlainObject } from "../common";
import { type FieldKind, type FormField, type FormValues, PAIR_ROWS, pairInputs } from "./form-field";

/** A JSON value as the text a control of that kind holds: the inverse of reading the form. */
export function textOf(kind: FieldKind, value: unknown): string {
  if (value === undefined || value === null) return "";
  if (kind === "checkbox") return value === true ? "true" : "";
  if (kind === "lines" && Array.isArray(value)) return value.join("\n");
  if (typeof value === "string" && kind !== "json") return value;
  if (typeof value === "number") return String(value);
  return JSON.stringify(value, null, 2);
}

/** The form as it first shows: each field at the schema's default. */
export const initialValues = (fields: FormField[]): FormValues => Object.fromEntries(fields.map((field) => [field.input, field.initial]));

/** A saved value as form values, for editing: secrets left out (their inputs start empty). */
export function valuesOf(fields: FormField[], saved: Record<string, unknown>): FormValues {
  const values: FormValues = {};
  for (const field of fields) {
    const value = field.name === "" ? saved : saved[field.name];
    if (field.secret || value === undefined || value === null) continue;
    if (field.kind === "pairs" && isPlainObject(value)) {
      Object.entries(value)
        .slice(0, PAIR_ROWS)
        .forEach(([key, text], row) => {
          values[pairInputs(field, row).name] = key;
          values[pairInputs(field, row).value] = String(text);
        });
    } else values[field.input] = textOf(field.kind, value);
  }
  return values;
}
