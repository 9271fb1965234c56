import type { Scope } from "../../core/scopes";
import { PostButton, formatTime } from "../common";
import { ErrorNote, Page, ScopeChoices } from "../layout";

export interface AppRow {
  client_id: string;
  name: string;
  redirect_uris: string[];
  scopes: Scope[];
}

export interface ApprovedRow {
  client_id: string;
  name: string;
  scopes: string[];
  last_used_at: string | null;
}

/**
 * `/app/apps`, the developer portal: the person's OAuth apps (a new one's client secret shown
 * once) and, apart, the apps they have approved, each revocable.
 */
export function AppsPage(props: {
  email: string;
  csrf: string;
  apps: AppRow[];
  approved: ApprovedRow[];
  created?: { name: string; clientId: string; secret: string };
  error?: string;
}) {
  return (
    <Page title="OAuth apps" email={props.email} csrf={props.csrf}>
      <h1>OAuth apps</h1>
      {props.created ? (
        <div class="notice" role="status">
          <p>
            <strong>{props.created.name}</strong> was registered. Copy its client secret now: it is shown only once.
          </p>
          <p>
            Client id: <code id="new-client-id">{props.created.clientId}</code>
          </p>
          <p>
            Client secret: <code id="new-client-secret">{props.created.secret}</code>
          </p>
        </div>
      ) : null}
      <ErrorNote message={props.error} />
      <section class="card" aria-labelledby="register-app">
        <h2 id="register-app">Register an app</h2>
        <form method="post" action="/app/apps">
          <input type="hidden" name="csrf_token" value={props.csrf} />
          <label for="app-name">Name</label>
          <input id="app-name" type="text" name="name" required maxlength={100} />
          <label for="app-redirects">Redirect URIs (one per line; https, or http to localhost)</label>
          <textarea id="app-redirects" name="redirect_uris" rows={3} required />
          <ScopeChoices legend="What the app may ask for" checked={(scope) => scope === "data:read"} />
          <button type="submit" name="step" value="create">
            Register app
          </button>
        </form>
      </section>
      <section class="card" aria-labelledby="your-apps">
        <h2 id="your-apps">Your apps</h2>
        {props.apps.length === 0 ? (
          <p>No app registered.</p>
        ) : (
          <ul>
            {props.apps.map((app) => (
              <li>
                <strong>{app.name}</strong> <code>{app.client_id}</code>: {app.scopes.join(", ")}; redirects to {app.redirect_uris.join(", ")}{" "}
                <PostButton
                  action="/app/apps"
                  csrf={props.csrf}
                  hidden={{ client_id: app.client_id }}
                  className="danger"
                  step="delete"
                  label="Delete"
                  ariaLabel={`Delete ${app.name}`}
                />
              </li>
            ))}
          </ul>
        )}
      </section>
      <section class="card" aria-labelledby="approved-apps">
        <h2 id="approved-apps">Apps you approved</h2>
        {props.approved.length === 0 ? (
          <p>You have not approved any app.</p>
        ) : (
          <ul>
            {props.approved.map((app) => (
              <li>
                <strong>{app.name}</strong> may {app.scopes.join(", ")}; last used {app.last_used_at ? formatTime(app.last_used_at) : "never"}{" "}
                <PostButton
                  action="/app/apps"
                  csrf={props.csrf}
                  hidden={{ client_id: app.client_id }}
                  className="danger"
                  step="revoke"
                  label="Revoke access"
                  ariaLabel={`Revoke ${app.name}'s access`}
                />
              </li>
            ))}
          </ul>
        )}
      </section>
    </Page>
  );
}
