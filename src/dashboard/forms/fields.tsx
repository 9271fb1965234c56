import { type FieldErrors, type FieldKind, type FormField, type FormValues, PAIR_ROWS, pairInputs } from "./form-field";

/** What a kind of field expects, said next to its label. */
const KIND_HINTS: Partial<Record<FieldKind, string>> = {
  lines: "one value per line",
  json: "JSON",
  any: "JSON, or plain text",
  integer: "a whole number",
};

type Common = Record<string, string | undefined>;

/**
 * One labelled control per field: required ones marked, the description as a hint and any error
 * tied to the control with aria-describedby. Secret fields always start empty: a secret typed
 * into a form is never written back into a page. `editing`: an empty secret keeps the saved one.
 */
export function FormFields(props: { fields: FormField[]; values: FormValues; errors: FieldErrors; editing?: boolean }) {
  return (
    <>
      {props.fields.map((field) => {
        const error = props.errors[field.input];
        const notes = <Notes field={field} error={error} editing={props.editing} />;
        const describedBy = describedByOf(field, error);
        const required = field.required ? <span class="required"> (required)</span> : null;
        if (field.kind === "pairs") {
          return (
            <fieldset aria-describedby={describedBy}>
              <legend>
                {field.label}
                {required}
              </legend>
              {notes}
              {Array.from({ length: PAIR_ROWS }, (_, row) => (
                <PairRow field={field} row={row} values={props.values} />
              ))}
            </fieldset>
          );
        }
        const common: Common = { id: field.id, name: field.input, "aria-describedby": describedBy, "aria-invalid": error ? "true" : undefined };
        const kindHint = KIND_HINTS[field.kind];
        const label = (
          <label for={field.id}>
            {field.label}
            {kindHint ? ` (${kindHint})` : null}
            {required}
          </label>
        );
        const value = props.values[field.input] ?? "";
        if (field.kind === "checkbox") {
          return (
            <div class="check">
              <input type="checkbox" value="true" checked={value === "true"} {...common} />
              {label}
              {notes}
            </div>
          );
        }
        return (
          <div>
            {label}
            {notes}
            <Control field={field} value={field.secret ? "" : value} common={common} />
          </div>
        );
      })}
    </>
  );
}

function Notes(props: { field: FormField; error?: string; editing?: boolean }) {
  const { field, error } = props;
  const secretNote = props.editing ? "Secret: leave empty to keep the saved value." : "Secret: stored encrypted and never shown again.";
  const hint = [field.description, field.secret ? secretNote : undefined].filter(Boolean).join(" ");
  return (
    <>
      {hint ? (
        <p class="hint" id={`${field.id}-hint`}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p class="field-error" id={`${field.id}-error`}>
          {error}
        </p>
      ) : null}
    </>
  );
}

function describedByOf(field: FormField, error?: string) {
  const hint = field.description || field.secret ? `${field.id}-hint` : undefined;
  return [hint, error ? `${field.id}-error` : undefined].filter(Boolean).join(" ") || undefined;
}

function Control(props: { field: FormField; value: string; common: Common }) {
  const { field, value, common } = props;
  const { required, maxLength: maxlength } = field;
  if (field.secret && field.kind !== "json" && field.kind !== "lines") {
    // new-password: browsers must not fill in the person's own hub password here.
    return <input type="password" value="" autocomplete="new-password" spellcheck={false} required={required} maxlength={maxlength} {...common} />;
  }
  switch (field.kind) {
    case "select": {
      // Left unset, the service's default applies; a field that has a value to show needs no "not set".
      const settled = (required || field.initial !== "") && field.options?.includes(value);
      return (
        <select {...common} required={required}>
          {settled ? null : <option value="">(not set)</option>}
          {field.options?.map((option) => (
            <option value={option} selected={option === value}>
              {option}
            </option>
          ))}
        </select>
      );
    }
    case "number":
    case "integer":
      return <input type="number" step={field.kind === "integer" ? "1" : "any"} value={value} required={required} {...common} />;
    case "url":
      return <input type="url" value={value} spellcheck={false} autocomplete="off" required={required} maxlength={maxlength} {...common} />;
    case "text":
      return <input type="text" value={value} autocomplete="off" required={required} maxlength={maxlength} {...common} />;
    default:
      // Long text, lists and JSON; a list may be left empty even where it is required.
      return (
        <textarea rows={field.kind === "textarea" ? 3 : 5} spellcheck={field.kind === "textarea"} required={required && field.kind !== "lines"} {...common}>
          {value}
        </textarea>
      );
  }
}

function PairRow(props: { field: FormField; row: number; values: FormValues }) {
  const { field, row } = props;
  const inputs = pairInputs(field, row);
  const noun = field.label.replace(/s$/, "");
  const id = `${field.id}-${row}`;
  return (
    <div class="pair">
      <div>
        <label for={`${id}-name`}>{`${noun} ${row + 1} name`}</label>
        <input type="text" id={`${id}-name`} name={inputs.name} value={props.values[inputs.name] ?? ""} autocomplete="off" spellcheck={false} maxlength={100} />
      </div>
      <div>
        <label for={`${id}-value`}>{`${noun} ${row + 1} value`}</label>
        {field.secret ? (
          <input type="password" id={`${id}-value`} name={inputs.value} value="" autocomplete="new-password" maxlength={4096} />
        ) : (
          <input type="text" id={`${id}-value`} name={inputs.value} value={props.values[inputs.value] ?? ""} autocomplete="off" maxlength={4096} />
        )}
      </div>
    </div>
  );
}

/** The CSS of the rows of a map's fields; controls, hints and errors are the layout's. */
export const FIELDS_STYLE = `
.pair{display:flex;flex-wrap:wrap;gap:0 12px}.pair>div{flex:1 1 180px;min-width:0}
fieldset label{display:block;font-weight:600}
`;
