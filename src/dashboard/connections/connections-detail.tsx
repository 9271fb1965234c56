import type { ConnectionTestResult } from "../../connections/test-connection";
import { labelOf } from "../forms/schema-fields";
import { ConnectionActions, type ConnectionView, StatusText, When } from "./connections-list";
import { CONNECTIONS_STYLE, TestOutcome } from "./connections-new";
import { Fact, PostButton } from "../common";
import { Page } from "../layout";

export interface ConnectionPageProps {
  email: string;
  csrf: string;
  connection: ConnectionView;
  /** For MCP: the tool names the server gave when last asked. */
  tools?: string[];
  outcome?: ConnectionTestResult;
}

/** `/app/connections/<id>`: one connection's health and settings, secrets masked as the API masks them. */
export function ConnectionPage(props: ConnectionPageProps) {
  const { connection } = props;
  const settings = Object.entries(connection.config);
  return (
    <Page title={connection.name} email={props.email} csrf={props.csrf} style={CONNECTIONS_STYLE}>
      <p>
        <a href="/app/connections">Back to connections</a>
      </p>
      <h1>{connection.name}</h1>
      {props.outcome ? <TestOutcome outcome={props.outcome} /> : null}
      <section class="card" aria-labelledby="connection-health">
        <h2 id="connection-health">Health</h2>
        <dl class="facts">
          <Fact term="Platform">{connection.platform_name}</Fact>
          <Fact term="Status">
            <StatusText connection={connection} />
          </Fact>
          <Fact term="Created">
            <When iso={connection.created_at} />
          </Fact>
          <Fact term="Last used or tested">
            <When iso={connection.last_used_at} />
          </Fact>
          <AuthorizationFacts connection={connection} />
        </dl>
        <ConnectionActions connection={connection} csrf={props.csrf} from="detail" />
        {connection.auth_mode === "oauth2" || connection.platform === "mcp" ? (
          <>
            <p class="hint">
              {connection.auth_mode === "oauth2"
                ? "Reconnect to authorize again (after the provider refused to renew the authorization, or to change the scopes): same connection, new tokens."
                : "If the server asks for OAuth authorization, Reconnect authorizes the hub there."}
            </p>
            <PostButton
              action={`/app/connections/${connection.connection_id}`}
              csrf={props.csrf}
              className="secondary"
              step="reconnect"
              label="Reconnect"
              ariaLabel={`Reconnect ${connection.name}`}
            />
          </>
        ) : null}
      </section>
      <section class="card" aria-labelledby="connection-settings">
        <h2 id="connection-settings">Settings</h2>
        {settings.length === 0 ? (
          <p>Nothing set beyond the platform's defaults.</p>
        ) : (
          <dl class="facts">
            {settings.map(([name, value]) => (
              <Fact term={labelOf(name)}>
                <code>{typeof value === "string" ? value : JSON.stringify(value)}</code>
              </Fact>
            ))}
          </dl>
        )}
        <p class="hint">Secrets show only their last four characters.</p>
        <p>
          <a href={`/app/connections/${connection.connection_id}/edit`}>Edit settings</a>
        </p>
      </section>
      {props.tools ? (
        <section class="card" aria-labelledby="connection-tools">
          <h2 id="connection-tools">Tools the server offered</h2>
          {props.tools.length === 0 ? (
            <p>None.</p>
          ) : (
            <ul>
              {props.tools.map((tool) => (
                <li>
                  <code>{tool}</code>
                </li>
              ))}
            </ul>
          )}
        </section>
      ) : null}
    </Page>
  );
}

/** An OAuth connection's authorization on its page: what was granted, until when, and when it was renewed. */
export function AuthorizationFacts(props: { connection: ConnectionView }) {
  const oauth = props.connection.oauth;
  if (!oauth) return null;
  return (
    <>
      <Fact term="Scopes">{oauth.scopes.length ? oauth.scopes.join(", ") : "none stated"}</Fact>
      <Fact term="Access token runs out">
        <When iso={oauth.expires_at} never="not stated" />
      </Fact>
      <Fact term="Last renewed">
        <When iso={oauth.refreshed_at} never="not yet" />
      </Fact>
    </>
  );
}
