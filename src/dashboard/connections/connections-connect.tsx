import { FormFields } from "../forms/fields";
import type { FieldErrors, FormField, FormValues } from "../forms/form-field";

/** The form fields of "Connect with …": the same controls as the settings form, with ids of their own. */
export const connectFieldsOf = (fields: FormField[]) => fields.map((field) => ({ ...field, id: `connect-${field.id}` }));

/**
 * "Connect with <platform>": a name and the platform's OAuth settings (all optional for a
 * platform whose app the deployment brings), posted to the start of the authorization.
 */
export function ConnectWith(props: {
  csrf: string;
  platform: { id: string; name: string };
  fields: FormField[];
  name: string;
  values: FormValues;
  errors: FieldErrors;
  /** Other ways exist (a pasted token): say this one needs nothing to copy. */
  alternative: boolean;
}) {
  const nameError = props.errors.name;
  return (
    <section class="card" aria-labelledby="connect-with">
      <h2 id="connect-with">{`Connect with ${props.platform.name}`}</h2>
      <p>
        {`You sign in at ${props.platform.name} and allow the hub; it keeps the tokens encrypted and renews them as they run out.`}
        {props.alternative ? " Nothing to copy and paste." : ""}
      </p>
      <form method="post" action="/app/connections/connect">
        <input type="hidden" name="csrf_token" value={props.csrf} />
        <input type="hidden" name="platform" value={props.platform.id} />
        <label for="connect-name">Name</label>
        {nameError ? (
          <p class="field-error" id="connect-name-error">
            {nameError}
          </p>
        ) : null}
        <input
          type="text"
          id="connect-name"
          name="name"
          value={props.name}
          required
          maxlength={100}
          autocomplete="off"
          aria-describedby={nameError ? "connect-name-error" : undefined}
          aria-invalid={nameError ? "true" : undefined}
        />
        {props.fields.length ? (
          <details open={Object.keys(props.errors).some((name) => name !== "name") || props.fields.some((field) => field.required)}>
            <summary>Settings</summary>
            <FormFields fields={props.fields} values={props.values} errors={props.errors} />
          </details>
        ) : null}
        <div class="actions">
          <button type="submit">{`Connect with ${props.platform.name}`}</button>
        </div>
      </form>
    </section>
  );
}
