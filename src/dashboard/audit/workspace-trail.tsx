import type { readAudit } from "../../workspaces/audit";
import { DataTable, formatTime } from "../common";
import { Page } from "../layout";
import { AuditTabs } from "./audit-tabs";

export type TrailPage = Awaited<ReturnType<typeof readAudit>>;
type TrailEntry = TrailPage["data"][number];

const TRAIL_STYLE = `
td{overflow-wrap:anywhere}
ul.detail{margin:0;padding-left:16px}
.pager{display:flex;flex-wrap:wrap;gap:8px 24px}
`;

/** "member.role_changed" reads as "member role changed". */
const actionText = (action: string) => action.replace(/[._]/g, " ");

const valueText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

function Detail(props: { detail: Record<string, unknown> }) {
  const facts = Object.entries(props.detail);
  if (facts.length === 0) return <>—</>;
  return (
    <ul class="detail">
      {facts.map(([key, value]) => (
        <li>
          {key.replace(/_/g, " ")}: {valueText(value)}
        </li>
      ))}
    </ul>
  );
}

/**
 * `/app/workspaces/{id}/audit`: who changed what in the workspace, newest first, a page at a time
 * (`GET /v1/workspaces/{id}/audit`): members and roles, workflows, agents, connections, approval
 * decisions and keys. Work the workspace did on its own has no person.
 */
export function WorkspaceTrailPage(props: { email: string; csrf: string; workspace: { id: number; name: string }; trail: TrailPage; paged: boolean }) {
  const base = `/app/workspaces/${props.workspace.id}/audit`;
  return (
    <Page title={`Audit trail of ${props.workspace.name}`} email={props.email} csrf={props.csrf} style={TRAIL_STYLE}>
      <h1>Audit trail of {props.workspace.name}</h1>
      <AuditTabs current="trail" workspaceId={props.workspace.id} />
      {props.trail.data.length === 0 ? (
        <p>{props.paged ? "No older changes." : "No changes recorded yet."}</p>
      ) : (
        <DataTable<TrailEntry>
          rows={props.trail.data}
          columns={[
            { label: "When", cell: (entry) => <time datetime={entry.at}>{formatTime(entry.at)}</time> },
            { label: "Who", cell: (entry) => entry.actor.email ?? "the workspace" },
            { label: "Action", cell: (entry) => actionText(entry.action) },
            { label: "Target", cell: (entry) => `${entry.target.type} ${entry.target.id}` },
            { label: "Detail", cell: (entry) => <Detail detail={entry.detail} /> },
          ]}
        />
      )}
      {props.paged || props.trail.next_cursor ? (
        <nav class="pager" aria-label="Audit trail pages">
          {props.paged ? <a href={base}>Newest entries</a> : null}
          {props.trail.next_cursor ? <a href={`${base}?cursor=${props.trail.next_cursor}`}>Older entries</a> : null}
        </nav>
      ) : null}
    </Page>
  );
}
