import { type ConfigField, type ConfigValues, PAIR_ROWS, pairInputs } from "./connections-fields";

/**
 * One labelled control per config field: required ones marked, the description as a hint and any
 * error tied to the control with aria-describedby. Secret fields are password inputs that always
 * start empty: a secret typed into a form is never written back into a page.
 */
export function ConfigInputs(props: { fields: ConfigField[]; values: ConfigValues; errors: Record<string, string>; editing?: boolean }) {
  return (
    <>
      {props.fields.map((field) => {
        const error = props.errors[field.input];
        const notes = <Notes field={field} error={error} editing={props.editing} />;
        const describedBy = describedByOf(field, error);
        if (field.kind === "pairs") {
          return (
            <fieldset aria-describedby={describedBy}>
              <legend>
                {field.label}
                {field.required ? <span class="required"> (required)</span> : null}
              </legend>
              {notes}
              {Array.from({ length: PAIR_ROWS }, (_, row) => (
                <PairRow field={field} row={row} values={props.values} />
              ))}
            </fieldset>
          );
        }
        const common = { id: field.id, name: field.input, "aria-describedby": describedBy, "aria-invalid": error ? "true" : undefined };
        const label = (
          <label for={field.id}>
            {field.label}
            {field.required ? <span class="required"> (required)</span> : null}
          </label>
        );
        if (field.kind === "checkbox") {
          return (
            <div class="check">
              <input type="checkbox" value="true" checked={props.values[field.input] === "true"} {...common} />
              {label}
              {notes}
            </div>
          );
        }
        return (
          <div>
            {label}
            {notes}
            <Control field={field} value={field.secret ? "" : (props.values[field.input] ?? "")} common={common} />
          </div>
        );
      })}
    </>
  );
}

function Notes(props: { field: ConfigField; error?: string; editing?: boolean }) {
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

function describedByOf(field: ConfigField, error?: string) {
  const hint = field.description || field.secret ? `${field.id}-hint` : undefined;
  return [hint, error ? `${field.id}-error` : undefined].filter(Boolean).join(" ") || undefined;
}

function Control(props: { field: ConfigField; value: string; common: Record<string, string | undefined> }) {
  const { field, value, common } = props;
  const maxlength = field.maxLength;
  if (field.secret && field.kind !== "json") {
    // new-password: browsers must not fill in the person's own hub password here.
    return <input type="password" value="" autocomplete="new-password" spellcheck={false} required={field.required} maxlength={maxlength} {...common} />;
  }
  switch (field.kind) {
    case "select":
      return (
        <select {...common} required={field.required}>
          {field.initial || field.required ? null : <option value="">(not set)</option>}
          {field.options?.map((option) => (
            <option value={option} selected={option === value}>
              {option}
            </option>
          ))}
        </select>
      );
    case "number":
    case "integer":
      return <input type="number" step={field.kind === "integer" ? "1" : "any"} value={value} required={field.required} {...common} />;
    case "url":
      return <input type="url" value={value} spellcheck={false} autocomplete="off" required={field.required} maxlength={maxlength} {...common} />;
    case "json":
      return (
        <textarea rows={4} spellcheck={false} required={field.required} {...common}>
          {field.secret ? "" : value}
        </textarea>
      );
    default:
      return <input type="text" value={value} autocomplete="off" required={field.required} maxlength={maxlength} {...common} />;
  }
}

function PairRow(props: { field: ConfigField; row: number; values: ConfigValues }) {
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

/** The connections pages' own CSS (controls, hints, action rows and fact lists are the layout's). */
/**
 * The connection's name, on the new and the edit form: an optional hint and the error it was
 * refused with, both tied to the input with aria-describedby.
 */
export function ConnectionNameInput(props: { value: string; error?: string; hint?: string }) {
  const describedBy = [props.hint ? "connection-name-hint" : "", props.error ? "connection-name-error" : ""].filter(Boolean).join(" ");
  return (
    <>
      <label for="connection-name">Name</label>
      {props.hint ? (
        <p class="hint" id="connection-name-hint">
          {props.hint}
        </p>
      ) : null}
      {props.error ? (
        <p class="field-error" id="connection-name-error">
          {props.error}
        </p>
      ) : null}
      <input
        type="text"
        id="connection-name"
        name="name"
        value={props.value}
        required
        maxlength={100}
        autocomplete="off"
        aria-describedby={describedBy || undefined}
        aria-invalid={props.error ? "true" : undefined}
      />
    </>
  );
}

export const CONNECTIONS_STYLE = `
.pair{display:flex;flex-wrap:wrap;gap:0 12px}.pair>div{flex:1 1 180px;min-width:0}
fieldset label{display:block;font-weight:600}
td,dd,li{overflow-wrap:anywhere}
.status{font-weight:600}.status-active{color:#047857}.status-error,.status-expired{color:#b91c1c}
`;
