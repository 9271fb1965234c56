/**
 * A form field made from one property of a JSON Schema: what the schema says about it and what
 * its form control is called. Built by `schemaFields`, shown by `FormFields`, read by `readForm`.
 */
export type FieldKind =
  /** One line of text (a string with a short maxLength, or any string where long text is off). */
  | "text"
  /** Several lines of text: a string that may be long. */
  | "textarea"
  | "url"
  | "number"
  | "integer"
  | "checkbox"
  /** A string with a list of allowed values. */
  | "select"
  /** A list of strings, one per line. */
  | "lines"
  /** A map of names to strings, as rows of two inputs. */
  | "pairs"
  /** Anything nested, typed as JSON. */
  | "json"
  /** A property of no stated type: JSON, or else plain text. */
  | "any";

export interface FormField {
  /** The property's name in the value; "" for the single field that holds the whole value. */
  name: string;
  label: string;
  /** The form control's name (for "pairs", the prefix of each row's controls) and element id. */
  input: string;
  id: string;
  kind: FieldKind;
  required: boolean;
  /** A credential: never written back into a page. */
  secret: boolean;
  /** Spaces around what is typed are dropped (settings), or kept (free text). */
  trim: boolean;
  description?: string;
  options?: string[];
  /** The value the form starts with (the schema's default), as text. */
  initial: string;
  maxLength?: number;
}

/** What was typed, by form control name, secrets left out: what a page may show again. */
export type FormValues = Record<string, string>;

/** A message per form control name. */
export type FieldErrors = Record<string, string>;

/** Rows offered for a map of names to values (an MCP server's extra headers). */
export const PAIR_ROWS = 3;

export const pairInputs = (field: FormField, row: number) => ({ name: `${field.input}.${row}.name`, value: `${field.input}.${row}.value` });
