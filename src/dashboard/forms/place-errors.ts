import type { FieldError } from "../../core/errors";
import type { FieldErrors, FormField } from "./form-field";

/**
 * A service's refusal placed beside the fields it names: `<root>.<property>…` goes to that
 * property's field (or the whole-value field), with the path when it points inside the property.
 * What names no field (another part of the request, an unknown property) is returned to be shown
 * above the form.
 */
export function placeErrors(fields: FormField[], problems: FieldError[], root: string): { errors: FieldErrors; unplaced: string[] } {
  const errors: FieldErrors = {};
  const unplaced: string[] = [];
  for (const problem of problems) {
    const under = problem.field === root || problem.field.startsWith(`${root}.`);
    const path = under ? problem.field.slice(root.length + 1) : "";
    const field = under
      ? (fields.find((f) => f.name !== "" && (path === f.name || path.startsWith(`${f.name}.`))) ?? fields.find((f) => f.name === ""))
      : undefined;
    const text = path && path !== field?.name ? `${path}: ${problem.message}` : problem.message;
    if (field) errors[field.input] = errors[field.input] ? `${errors[field.input]} ${text}` : text;
    else unplaced.push(text);
  }
  return { errors, unplaced };
}
