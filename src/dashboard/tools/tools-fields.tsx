import type { ArgField, FieldValues } from "./tools-args";

/** What each kind of field expects, said next to its label. */
const HINTS: Partial<Record<ArgField["kind"], string>> = {
  lines: "one value per line",
  json: "JSON",
  any: "JSON, or plain text",
  integer: "a whole number",
};

/**
 * One labelled control per argument: its name, whether it is required, its description and any
 * error the last run gave it (tied to the control with aria-describedby).
 */
export function ArgumentFields(props: { fields: ArgField[]; values: FieldValues; errors: Record<string, string> }) {
  return (
    <>
      {props.fields.map((field) => {
        const value = props.values[field.input] ?? "";
        const error = props.errors[field.input];
        const help = field.description ? `${field.id}-help` : undefined;
        const problem = error ? `${field.id}-error` : undefined;
        const describedBy = [help, problem].filter(Boolean).join(" ") || undefined;
        const hint = HINTS[field.kind];
        const common = { id: field.id, name: field.input, "aria-describedby": describedBy, "aria-invalid": error ? "true" : undefined };
        const label = (
          <label for={field.id}>
            {field.name || "Arguments"}
            {hint ? ` (${hint})` : ""}
            {field.required ? <span class="required"> (required)</span> : null}
          </label>
        );
        const notes = (
          <>
            {field.description ? (
              <p class="hint" id={help}>
                {field.description}
              </p>
            ) : null}
            {error ? (
              <p class="field-error" id={problem}>
                {error}
              </p>
            ) : null}
          </>
        );
        if (field.kind === "boolean") {
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
            <Control field={field} value={value} common={common} />
          </div>
        );
      })}
    </>
  );
}

function Control(props: { field: ArgField; value: string; common: Record<string, string | undefined> }) {
  const { field, value, common } = props;
  switch (field.kind) {
    case "enum":
      return (
        <select {...common} required={field.required}>
          {field.required && field.options?.includes(value) ? null : <option value="">(not set)</option>}
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
    case "string":
      return <input type="text" value={value} required={field.required} {...common} />;
    default:
      return (
        <textarea rows={field.kind === "text" ? 3 : 5} spellcheck={field.kind === "text"} required={field.required && field.kind !== "lines"} {...common}>
          {value}
        </textarea>
      );
  }
}

/** The tools pages' own CSS (controls, hints, events and scrolling JSON are the layout's). */
export const TOOLS_STYLE = `
textarea{font-family:ui-monospace,Menlo,Consolas,monospace}
.tool-list{list-style:none;padding:0}.tool-list li{border-bottom:1px solid #e5e7eb;padding:8px 0;overflow-wrap:anywhere}
.tool-list p{margin:4px 0 0}
`;
