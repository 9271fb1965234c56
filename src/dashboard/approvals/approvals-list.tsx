import type { ApprovalStatus, ApprovalView } from "../../approvals/present";
import { DataTable } from "../common";
import { Page } from "../layout";
import { APPROVALS_STYLE, AskedBy, EffectBadge, StatusBadge, Time, approvalHref, argumentsSummary } from "./approval-parts";

/** The lists the page has: `?status=` names one; none is the pending ones, `all` every approval. */
export const LISTS = ["pending", "approved", "denied", "expired", "all"] as const;
export type ListName = (typeof LISTS)[number];

const TAB_WORDS: Record<ListName, string> = { pending: "Pending", approved: "Approved", denied: "Denied", expired: "Expired", all: "All" };

const EMPTY: Record<ListName, string> = {
  pending: "Nothing waits for you: calls a policy rule asks about appear here.",
  approved: "No approved calls yet.",
  denied: "No denied calls yet.",
  expired: "No approvals expired.",
  all: "No approvals yet: calls a policy rule asks about appear here.",
};

export const listHref = (list: ListName, cursor?: string) => {
  const query = new URLSearchParams();
  if (list !== "pending") query.set("status", list);
  if (cursor) query.set("cursor", cursor);
  const text = query.toString();
  return text ? `/app/approvals?${text}` : "/app/approvals";
};

export interface ApprovalsListProps {
  email: string;
  csrf: string;
  list: ListName;
  approvals: ApprovalView[];
  nextCursor: string | null;
  paged: boolean;
}

/**
 * `/app/approvals`: the calls waiting for the person (the pending list comes first), and tabs for
 * the decided and expired ones; newest first, a page at a time with the service's cursor.
 */
export function ApprovalsListPage(props: ApprovalsListProps) {
  const { list } = props;
  return (
    <Page title="Approvals" email={props.email} csrf={props.csrf} style={APPROVALS_STYLE}>
      <h1>Approvals</h1>
      <p>
        Tool calls a policy rule sent to you before they run. Open one to see the call in full, edit its arguments, and approve or deny it. A call nobody
        decides expires, and counts as denied.
      </p>
      <nav class="tabs" aria-label="Approvals by status">
        <ul>
          {LISTS.map((name) => (
            <li>
              <a href={listHref(name)} aria-current={name === list ? "page" : undefined}>
                {TAB_WORDS[name]}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {props.approvals.length === 0 ? (
        <p>{props.paged ? "No older approvals." : EMPTY[list]}</p>
      ) : (
        <DataTable
          rows={props.approvals}
          caption={`${TAB_WORDS[list]} approvals, newest first`}
          captionHidden
          columns={[
            {
              label: "Tool",
              cell: (approval) => (
                <a href={approvalHref(approval.id)}>
                  <code>{approval.tool}</code>
                </a>
              ),
            },
            { label: "Effect", cell: (approval) => <EffectBadge effect={approval.effect} /> },
            { label: "Arguments", cell: (approval) => <code>{argumentsSummary(approval.arguments)}</code> },
            { label: "Asked by", cell: (approval) => <AskedBy approval={approval} /> },
            { label: "Requested", cell: (approval) => <Time value={approval.requested_at} /> },
            { label: "Status", cell: (approval) => <StatusCell approval={approval} /> },
          ]}
        />
      )}
      {props.paged || props.nextCursor ? (
        <nav class="pager" aria-label="Approval pages">
          {props.paged ? <a href={listHref(list)}>Newest approvals</a> : null}
          {props.nextCursor ? <a href={listHref(list, props.nextCursor)}>Older approvals</a> : null}
        </nav>
      ) : null}
    </Page>
  );
}

/** Pending: until when it can be decided, and a link to decide; decided: when and by whom. */
function StatusCell(props: { approval: ApprovalView }) {
  const { approval } = props;
  const status: ApprovalStatus = approval.status;
  if (status === "pending") {
    return (
      <>
        <StatusBadge status={status} /> expires <Time value={approval.expires_at} />
        <br />
        <a href={approvalHref(approval.id)}>
          Review<span class="visually-hidden">{` the call of ${approval.tool} requested ${approval.requested_at}`}</span>
        </a>
      </>
    );
  }
  return (
    <>
      <StatusBadge status={status} /> <Time value={approval.decided_at} />
      {approval.decided_by ? (
        <>
          {" by "}
          <code>{approval.decided_by}</code>
        </>
      ) : null}
    </>
  );
}
