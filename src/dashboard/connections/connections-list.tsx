import type { presentConnection } from "../../connections/service";
import type { ConnectionTestResult } from "../../connections/test-connection";
import { CONNECTIONS_STYLE, TestOutcome } from "./connections-new";
import { type PlatformChoice, PlatformChooser } from "./platform-chooser";
import { DataTable, PostButton, formatTime } from "../common";
import { ErrorNote, Page } from "../layout";

/** A connection as the API presents it (secrets masked), with its platform's display name. */
export type ConnectionView = Awaited<ReturnType<typeof presentConnection>> & { platform_name: string };

/** "2025-03-01 14:05:09 UTC", in a <time> machines can read. */
export function When(props: { iso: string | null; never?: string }) {
  if (!props.iso) return <>{props.never ?? "never"}</>;
  return <time datetime={props.iso}>{formatTime(props.iso)}</time>;
}

/** The status in words (never colour alone), with the message the last failure left. */
export function StatusText(props: { connection: ConnectionView }) {
  const { status, error_message } = props.connection;
  return (
    <>
      <span class={`status status-${status}`}>
        {status === "active" ? "Active" : status === "expired" ? "Expired" : status === "pending" ? "Waiting for authorization" : "Error"}
      </span>
      {error_message ? <span>{`: ${error_message}`}</span> : null}
    </>
  );
}

/** "Test <name>" and "Delete <name>": each a form of its own, posted to the connection's address. */
export function ConnectionActions(props: { connection: ConnectionView; csrf: string; from: "list" | "detail" }) {
  const { connection } = props;
  const action = `/app/connections/${connection.connection_id}`;
  return (
    <div class="actions">
      <PostButton
        action={action}
        csrf={props.csrf}
        hidden={{ from: props.from }}
        className="secondary"
        step="test"
        label="Test"
        ariaLabel={`Test ${connection.name}`}
      />
      <PostButton action={action} csrf={props.csrf} className="danger" step="delete" label="Delete" ariaLabel={`Delete ${connection.name}`} />
    </div>
  );
}

export interface ConnectionsPageProps {
  email: string;
  csrf: string;
  connections: ConnectionView[];
  platforms: PlatformChoice[];
  /** Shown after a save: the connection just created. */
  saved?: string;
  tested?: { name: string; outcome: ConnectionTestResult };
  error?: string;
}

/** `/app/connections`: the person's connections with their health, and the start of adding one. */
export function ConnectionsPage(props: ConnectionsPageProps) {
  return (
    <Page title="Connections" email={props.email} csrf={props.csrf} style={CONNECTIONS_STYLE}>
      <h1>Connections</h1>
      {props.saved ? (
        <p class="notice" role="status">
          Saved <strong>{props.saved}</strong>.
        </p>
      ) : null}
      {props.tested ? <TestOutcome outcome={props.tested.outcome} subject={props.tested.name} /> : null}
      <ErrorNote message={props.error} />
      <section class="card" aria-labelledby="your-connections">
        <h2 id="your-connections">Your connections</h2>
        {props.connections.length === 0 ? (
          <p>No connections yet. Add one below to bring its tools into the hub.</p>
        ) : (
          <DataTable
            rows={props.connections}
            columns={[
              { label: "Name", cell: (connection) => <a href={`/app/connections/${connection.connection_id}`}>{connection.name}</a> },
              { label: "Platform", cell: (connection) => connection.platform_name },
              { label: "Status", cell: (connection) => <StatusText connection={connection} /> },
              { label: "Created", cell: (connection) => <When iso={connection.created_at} /> },
              { label: "Last used or tested", cell: (connection) => <When iso={connection.last_used_at} /> },
              { label: "Actions", hideLabel: true, cell: (connection) => <ConnectionActions connection={connection} csrf={props.csrf} from="list" /> },
            ]}
          />
        )}
      </section>
      <section class="card" aria-labelledby="add-connection">
        <h2 id="add-connection">Add a connection</h2>
        <p>Choose the platform; the next page asks for what it needs and lets you test it before saving.</p>
        <PlatformChooser platforms={props.platforms} />
      </section>
    </Page>
  );
}
