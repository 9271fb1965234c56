import type { ConnectionTestResult } from "../../connections/test-connection";
import { FIELDS_STYLE, FormFields } from "../forms/fields";
import type { FieldErrors, FormField, FormValues } from "../forms/form-field";
import { ConnectionNameInput } from "./connections-name";
import { ConnectWith } from "./connections-connect";
import { ErrorNote, Page } from "../layout";
import { type PlatformChoice, PlatformChooser } from "./platform-chooser";

/** The connections pages' own CSS (controls, hints, action rows and fact lists are the layout's). */
export const CONNECTIONS_STYLE = `
td,dd,li{overflow-wrap:anywhere}
.status{font-weight:600}.status-active{color:#047857}.status-error,.status-expired{color:#b91c1c}.status-pending{color:#92400e}
`;

/** Tools listed after a test; an MCP server may offer many more. */
const TOOLS_SHOWN = 100;

export interface NewConnectionProps {
  email: string;
  csrf: string;
  platforms: PlatformChoice[];
  /** What the platform search was given (`?q=`). */
  query?: string;
  /** The chosen platform and its fields; absent until one is chosen. */
  platform?: PlatformChoice;
  fields: FormField[];
  name: string;
  values: FormValues;
  errors: FieldErrors;
  error?: string;
  outcome?: ConnectionTestResult;
  /** Secrets were typed: say they must be typed again, since the page never holds them. */
  secretsCleared?: boolean;
  /** "Connect with …", for a platform that connects with OAuth. */
  connect?: { fields: FormField[]; name: string; values: FormValues; errors: FieldErrors };
}

/** `/app/connections/new?platform=<id>`: a form built from the platform's config schema, to test and save. */
export function NewConnectionPage(props: NewConnectionProps) {
  const { platform } = props;
  return (
    <Page title="Add a connection" email={props.email} csrf={props.csrf} style={CONNECTIONS_STYLE + FIELDS_STYLE}>
      <p>
        <a href="/app/connections">Back to connections</a>
      </p>
      <h1>Add a connection</h1>
      <ErrorNote message={props.error} />
      {props.outcome ? <TestOutcome outcome={props.outcome} /> : null}
      {props.secretsCleared ? (
        <p class="notice" role="status">
          Secret fields are never sent back to the page: enter them again before you save.
        </p>
      ) : null}
      <section class="card" aria-labelledby="choose-platform">
        <h2 id="choose-platform">Choose a platform</h2>
        <PlatformChooser platforms={props.platforms} selected={platform?.id} query={props.query} />
      </section>
      {platform && props.connect ? <ConnectWith csrf={props.csrf} platform={platform} {...props.connect} alternative={!platform.oauthOnly} /> : null}
      {platform && !platform.oauthOnly ? (
        <section class="card" aria-labelledby="connection-settings">
          <h2 id="connection-settings">{`${platform.name} settings`}</h2>
          <p>{platform.description}</p>
          <form method="post" action="/app/connections/new">
            <input type="hidden" name="csrf_token" value={props.csrf} />
            <input type="hidden" name="platform" value={platform.id} />
            <ConnectionNameInput value={props.name} error={props.errors.name} hint="Required. What you call this connection, e.g. “Marketing Slack”." />
            <FormFields fields={props.fields} values={props.values} errors={props.errors} />
            <div class="actions">
              {/* Test comes first: pressing Enter in a field tries the settings, it does not save them. */}
              <button type="submit" name="step" value="test" class="secondary">
                Test
              </button>
              <button type="submit" name="step" value="save">
                Save
              </button>
            </div>
          </form>
        </section>
      ) : null}
    </Page>
  );
}

/** What a test found: the tools an MCP server offers, or what the platform answered; or why it failed. */
export function TestOutcome(props: { outcome: ConnectionTestResult; subject?: string }) {
  const { outcome } = props;
  const subject = props.subject ? `${props.subject}: ` : "";
  if (!outcome.success) {
    return (
      <div class="error" role="alert">
        <p>
          <strong>{`${subject}Test failed`}</strong> (status {outcome.status}): {outcome.message}
        </p>
      </div>
    );
  }
  const tools = outcome.tools ?? [];
  return (
    <div class="notice" role="status">
      <p>
        <strong>{`${subject}Test passed`}</strong>: {outcome.message}
      </p>
      {tools.length ? (
        <>
          <p>{`Tools found (${tools.length}):`}</p>
          <ul>
            {tools.slice(0, TOOLS_SHOWN).map((tool) => (
              <li>
                <code>{tool}</code>
              </li>
            ))}
          </ul>
          {tools.length > TOOLS_SHOWN ? <p>{`…and ${tools.length - TOOLS_SHOWN} more.`}</p> : null}
        </>
      ) : null}
    </div>
  );
}
