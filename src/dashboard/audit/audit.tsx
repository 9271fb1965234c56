import type { presentAudit } from "../../tools/audit";
import { DataTable, JsonBlock, formatTime } from "../common";
import { Page } from "../layout";
import { AuditTabs } from "./audit-tabs";

export type AuditRow = ReturnType<typeof presentAudit>;

const AUDIT_STYLE = `
td{overflow-wrap:anywhere}
.outcome{font-weight:600}.outcome-success{color:#047857}.outcome-error{color:#b91c1c}
summary{cursor:pointer;color:#1d4ed8}
.pager{display:flex;flex-wrap:wrap;gap:8px 24px}
`;

/**
 * `/app/audit`: the person's own tool calls, newest first, a page at a time. Arguments are shown
 * as the audit log stored them: with secrets already redacted.
 */
export function AuditPage(props: { email: string; csrf: string; workspaceId: number; entries: AuditRow[]; olderBefore?: number; paged: boolean }) {
  return (
    <Page title="Audit log" email={props.email} csrf={props.csrf} style={AUDIT_STYLE}>
      <h1>Audit log</h1>
      <AuditTabs current="calls" workspaceId={props.workspaceId} />
      <p>Every tool call made with your account, from the API, chats, workflows and agents. Secrets in arguments are redacted.</p>
      {props.entries.length === 0 ? (
        <p>{props.paged ? "No older tool calls." : "No tool calls yet."}</p>
      ) : (
        <DataTable
          rows={props.entries}
          columns={[
            { label: "Time", cell: (entry) => <time datetime={entry.created_at}>{formatTime(entry.created_at)}</time> },
            {
              label: "Tool",
              cell: (entry) => (
                <>
                  <code>{entry.tool}</code>
                  <br />
                  <small>{`${entry.source}, call ${entry.call_id}`}</small>
                </>
              ),
            },
            {
              label: "Outcome",
              cell: (entry) => (
                <>
                  <span class={`outcome outcome-${entry.outcome}`}>{entry.outcome === "success" ? "Success" : "Error"}</span>
                  {entry.error_message ? <span>{`: ${entry.error_message}`}</span> : null}
                </>
              ),
            },
            { label: "Duration", cell: (entry) => `${entry.duration_ms} ms` },
            {
              label: "Arguments",
              cell: (entry) => (
                <details>
                  <summary>
                    Show<span class="visually-hidden">{` arguments of ${entry.tool}, call ${entry.call_id}`}</span>
                  </summary>
                  <JsonBlock value={entry.arguments ?? null} />
                </details>
              ),
            },
          ]}
        />
      )}
      {props.paged || props.olderBefore ? (
        <nav class="pager" aria-label="Audit log pages">
          {props.paged ? <a href="/app/audit">Newest entries</a> : null}
          {props.olderBefore ? <a href={`/app/audit?before=${props.olderBefore}`}>Older entries</a> : null}
        </nav>
      ) : null}
    </Page>
  );
}
