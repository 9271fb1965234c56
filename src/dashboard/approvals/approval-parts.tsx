import type { ApprovalStatus, ApprovalView } from "../../approvals/present";
import { formatTime } from "../common";

/** The approvals pages' own CSS: effect and status badges (each says its word too, never colour alone). */
export const APPROVALS_STYLE = `
td{overflow-wrap:anywhere}
.badge.effect-read{background:#dbeafe;color:#1e3a8a}.badge.effect-write{background:#fef3c7;color:#78350f}.badge.effect-destructive{background:#fee2e2;color:#7f1d1d}
.badge.pending{background:#fef3c7;color:#78350f}.badge.approved{background:#dcfce7;color:#14532d}.badge.denied{background:#fee2e2;color:#7f1d1d}.badge.expired{background:#e5e7eb;color:#111827}
.tabs ul{list-style:none;display:flex;flex-wrap:wrap;gap:4px 16px;margin:0;padding:0}
.tabs a[aria-current=page]{font-weight:700;color:#111827;text-decoration:none}
.pager{display:flex;flex-wrap:wrap;gap:8px 24px}
textarea.json{max-width:100%;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:14px}
textarea.note{max-width:100%}
`;

export const approvalHref = (id: string) => `/app/approvals/${encodeURIComponent(id)}`;

export const STATUS_WORDS: Record<ApprovalStatus, string> = { pending: "Pending", approved: "Approved", denied: "Denied", expired: "Expired" };

export function EffectBadge(props: { effect: string }) {
  return <span class={`badge effect-${props.effect}`}>{props.effect}</span>;
}

export function StatusBadge(props: { status: ApprovalStatus }) {
  return <span class={`badge ${props.status}`}>{STATUS_WORDS[props.status]}</span>;
}

/** Longest arguments summary a list row shows; the approval's page has them whole. */
const SUMMARY_CHARS = 120;

/** The arguments on one line (`{"channel":"#ops","text":"…"}`), cut short for a list. */
export function argumentsSummary(args: Record<string, unknown>): string {
  const text = JSON.stringify(args);
  return text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS - 1)}…` : text;
}

/** Who asked: the agent, the conversation and the run (with its step), each linked to its page. */
export function AskedBy(props: { approval: ApprovalView }) {
  const { agent_id, conversation_id, execution_id, step_id } = props.approval;
  const parts = [
    agent_id ? (
      <a href={`/app/agents/${encodeURIComponent(agent_id)}`}>
        Agent <code>{agent_id}</code>
      </a>
    ) : null,
    conversation_id !== undefined ? <a href={`/app/conversations/${conversation_id}`}>Conversation {conversation_id}</a> : null,
    execution_id ? (
      <a href={`/app/executions/${encodeURIComponent(execution_id)}`}>
        Run <code>{execution_id}</code>
        {step_id ? (
          <>
            , step <code>{step_id}</code>
          </>
        ) : null}
      </a>
    ) : null,
  ].filter((part) => part !== null);
  if (parts.length === 0) return <span>—</span>;
  return (
    <span>
      {parts.map((part, index) => (
        <>
          {index > 0 ? " · " : null}
          {part}
        </>
      ))}
    </span>
  );
}

export function Time(props: { value: string | null }) {
  return props.value ? <time datetime={props.value}>{formatTime(props.value)}</time> : <span>—</span>;
}
