import type { LiveLink } from "../../approvals/links";
import type { ApprovalView } from "../../approvals/present";
import { Fact, JsonBlock, formatTime } from "../common";
import { ErrorNote, Page } from "../layout";

/** What an email link opens: the call, who asks, until when, and the two buttons (a GET never decides). */
export function ApprovalLinkPage(props: { link: LiveLink; action: string; error?: string }) {
  const { approval, about, recipient } = props.link;
  return (
    <Page title="Approve or deny a call">
      <h1>Approve or deny a call</h1>
      <ErrorNote message={props.error} />
      <p>
        {about.agent} wants to run <code>{approval.tool}</code>. Nothing runs until someone decides.
      </p>
      <dl class="facts">
        <Fact term="Tool">
          <code>{approval.tool}</code>
        </Fact>
        <Fact term="Effect">{approval.effect}</Fact>
        <Fact term="Agent">{about.agent}</Fact>
        <Fact term="Status">
          <span class="badge waiting">{approval.status}</span>
        </Fact>
        <Fact term="Requested">{formatTime(approval.requested_at)}</Fact>
        <Fact term="Expires">{formatTime(approval.expires_at)}</Fact>
        <Fact term="Sent to">{recipient}</Fact>
      </dl>
      <JsonBlock label="Arguments" value={approval.arguments} />
      <form method="post" action={props.action}>
        <label for="approval-note">
          Note <span class="required">(optional; with a denial, the agent is told it)</span>
        </label>
        <textarea id="approval-note" name="note" rows={2} maxlength={2000} />
        <div class="actions">
          <button type="submit" name="decision" value="approve">
            Approve
          </button>
          <button type="submit" name="decision" value="deny" class="danger">
            Deny
          </button>
        </div>
      </form>
      <p class="meta">Approval {approval.id}. The link works once: it stops working when the call is decided, here or elsewhere, or expires.</p>
    </Page>
  );
}

/** After a decision made here: what was decided (the link is now dead). */
export function ApprovalDecidedPage(props: { approval: ApprovalView }) {
  const approved = props.approval.status === "approved";
  return (
    <Page title={approved ? "Approved" : "Denied"}>
      <h1>{approved ? "Approved" : "Denied"}</h1>
      <p class="notice" role="status">
        <code>{props.approval.tool}</code> was {approved ? "approved: the agent goes on and runs it." : "denied: the agent is told and does not run it."}
      </p>
      <p class="meta">This link no longer works.</p>
    </Page>
  );
}

/** Any link that no longer decides (unknown, used, expired, malformed): one page for all, saying nothing more. */
export function ApprovalLinkGonePage(props: { message?: string }) {
  return (
    <Page title="Link no longer valid">
      <h1>This link is no longer valid</h1>
      <p>{props.message ?? "The call it was about was already decided, or the request expired, or the link is not complete."}</p>
      <p class="meta">Nothing was changed. If you still need to decide, ask for the request to be sent again.</p>
    </Page>
  );
}
