import { FIELDS_STYLE, FormFields } from "../forms/fields";
import type { FieldErrors, FormField, FormValues } from "../forms/form-field";
import type { ConnectionView } from "./connections-list";
import { ConnectionNameInput } from "./connections-name";
import { CONNECTIONS_STYLE } from "./connections-new";
import { ErrorNote, Page } from "../layout";

export interface EditConnectionProps {
  email: string;
  csrf: string;
  connection: ConnectionView;
  /** The platform's fields, secrets never required: an empty one keeps the saved value. */
  fields: FormField[];
  name: string;
  values: FormValues;
  errors: FieldErrors;
  error?: string;
}

/** `/app/connections/<id>/edit`: the name and settings; secrets start empty and are kept unless typed again. */
export function EditConnectionPage(props: EditConnectionProps) {
  const { connection } = props;
  const base = `/app/connections/${connection.connection_id}`;
  return (
    <Page title={`Edit ${connection.name}`} email={props.email} csrf={props.csrf} style={CONNECTIONS_STYLE + FIELDS_STYLE}>
      <p>
        <a href={base}>Back to {connection.name}</a>
      </p>
      <h1>{`Edit ${connection.name}`}</h1>
      <ErrorNote message={props.error} />
      <section class="card" aria-labelledby="edit-settings">
        <h2 id="edit-settings">{`${connection.platform_name} settings`}</h2>
        <p>Changing where requests go (a URL) needs the secrets typed again, so they cannot be sent somewhere new unseen.</p>
        <form method="post" action={`${base}/edit`}>
          <input type="hidden" name="csrf_token" value={props.csrf} />
          <ConnectionNameInput value={props.name} error={props.errors.name} />
          <FormFields fields={props.fields} values={props.values} errors={props.errors} editing />
          <button type="submit" name="step" value="update">
            Save changes
          </button>
        </form>
      </section>
    </Page>
  );
}
