import type { Scope } from "../../core/scopes";
import { DataTable, PostButton, formatTime } from "../common";
import { ErrorNote, Page, ScopeChoices } from "../layout";

export interface KeyRow {
  id: number;
  name: string;
  prefix: string;
  scopes: Scope[];
  created_at: string;
  last_used_at: string | null;
}

/** `/app/keys`: the person's API keys, a form for a new one, and a new key's secret, shown once. */
export function KeysPage(props: { email: string; csrf: string; keys: KeyRow[]; created?: { name: string; secret: string }; error?: string }) {
  return (
    <Page title="API keys" email={props.email} csrf={props.csrf}>
      <h1>API keys</h1>
      {props.created ? (
        <div class="notice" role="status">
          <p>
            <strong>{props.created.name}</strong> was created. Copy its secret now: it is shown only once.
          </p>
          <p>
            <code id="new-key-secret">{props.created.secret}</code>
          </p>
        </div>
      ) : null}
      <ErrorNote message={props.error} />
      <section class="card" aria-labelledby="create-key">
        <h2 id="create-key">Create a key</h2>
        <form method="post" action="/app/keys">
          <input type="hidden" name="csrf_token" value={props.csrf} />
          <label for="key-name">Name</label>
          <input id="key-name" type="text" name="name" required maxlength={100} placeholder="CI pipeline" />
          <ScopeChoices legend="What the key may do" checked={() => true} />
          <button type="submit" name="step" value="create">
            Create key
          </button>
        </form>
      </section>
      <section class="card" aria-labelledby="your-keys">
        <h2 id="your-keys">Your keys</h2>
        {props.keys.length === 0 ? (
          <p>No active key.</p>
        ) : (
          <DataTable
            rows={props.keys}
            columns={[
              { label: "Name", cell: (key) => key.name },
              { label: "Key", cell: (key) => <code>{key.prefix}…</code> },
              { label: "Scopes", cell: (key) => key.scopes.join(", ") },
              { label: "Last used", cell: (key) => (key.last_used_at ? formatTime(key.last_used_at) : "never") },
              {
                label: "Revoke",
                hideLabel: true,
                cell: (key) => (
                  <PostButton
                    action="/app/keys"
                    csrf={props.csrf}
                    hidden={{ key_id: String(key.id) }}
                    className="danger"
                    step="revoke"
                    label="Revoke"
                    ariaLabel={`Revoke ${key.name}`}
                  />
                ),
              },
            ]}
          />
        )}
      </section>
    </Page>
  );
}
