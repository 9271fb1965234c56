import { eq } from "drizzle-orm";
import { verifySlack } from "./webhook-schemes/slack";
import type { InboundDelivery } from "./webhook-schemes/types";
import { delegatedContext, type Runtime, type ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { approvals, type Approval } from "../db/schema";
import { loggableError } from "../lib/safe-log";
import { addressPolicyFor } from "../net/address-policy";
import { safeFetch } from "../net/safe-fetch";
import { openChannelConnection } from "../approvals/channels/connection";
import { APPROVE_ACTION, DENY_ACTION } from "../approvals/channels/slack";
import { entriesOf } from "../approvals/channels/state";
import { decideApproval } from "../approvals/service";

/** A click on an approval's button, as the (not yet verified) block_actions payload says. */
export interface SlackClick {
  approvalId: string;
  decision: "approve" | "deny";
  /** The Slack user who clicked (`U…`/`W…`). */
  slackUser: string;
  /** Where Slack takes a reply to the person who clicked (an ephemeral message). */
  responseUrl: string | undefined;
}

/**
 * One answer for everything that is not a verified click on one of this hub's approvals (no
 * such approval, no signing secret on its Slack connections, a wrong or stale signature), so
 * nothing is learnt about which approvals exist.
 */
const refused = () => new HubError("unauthorized", "Not a verified click on an approval's button.", { challenge: 'HMAC realm="agent-automation-hub"' });

/**
 * `POST /v1/hooks/slack/interactions`: a click on Approve or Deny. The payload names the approval
 * (each button's value), whose Slack channels name the connections whose signing secret may have
 * signed it: `X-Slack-Signature` must be `v0=` + the HMAC-SHA256 of `v0:<timestamp>:<raw body>`
 * under one of them, with `X-Slack-Request-Timestamp` within 5 minutes (the agents' Slack scheme).
 * Verified, the click decides as the approval's owner, by `slack:<user id>`; the message is then
 * updated through the decision. A click on an approval decided already answers 200 with a note
 * for the person (also sent to the payload's response_url, which Slack shows only to them).
 */
export async function answerSlackClick(runtime: Runtime, delivery: InboundDelivery, nowMs = Date.now()): Promise<Record<string, unknown>> {
  const click = clickOf(delivery.rawBody);
  if (!click) throw refused();
  const approval = await runtime.db.select().from(approvals).where(eq(approvals.id, click.approvalId)).get();
  if (!approval) throw refused();
  const ctx = await verifiedContext(runtime, approval, delivery, nowMs);
  if (!ctx) throw refused();
  try {
    await decideApproval(ctx, approval.id, { decision: click.decision }, `slack:${click.slackUser}`);
    return {};
  } catch (error) {
    if (!(error instanceof HubError) || error.code !== "conflict") throw error;
    const reply = { response_type: "ephemeral", replace_original: false, text: error.message };
    if (click.responseUrl) runtime.waitUntil(replyPrivately(ctx, approval, click.responseUrl, reply));
    return reply;
  }
}

/** The approval owner's context when one of its Slack connections' signing secrets signed the delivery; else undefined. */
async function verifiedContext(runtime: Runtime, approval: Approval, delivery: InboundDelivery, nowMs: number): Promise<ServiceContext | undefined> {
  const ids = [...new Set(entriesOf(approval.notify).flatMap((entry) => (entry.via === "slack" ? [entry.connection_id] : [])))];
  for (const id of ids) {
    const ctx = delegatedContext(runtime, approval.userId, `slack_connection:${id}`);
    const opened = await openChannelConnection(ctx, id, ["slack"]).catch(() => undefined);
    const secret = opened?.config.signing_secret;
    if (typeof secret !== "string" || !secret) continue;
    const outcome = await verifySlack(secret, delivery, nowMs);
    if (outcome.kind !== "rejected") return ctx;
  }
  return undefined;
}

/** Reads the block_actions payload (form field `payload`, JSON) for a click on an approval's button. */
export function clickOf(rawBody: string): SlackClick | undefined {
  const payload = new URLSearchParams(rawBody).get("payload");
  if (payload === null) return undefined;
  let parsed: any;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (parsed?.type !== "block_actions" || !Array.isArray(parsed.actions)) return undefined;
  const action = parsed.actions.find((a: any) => a?.action_id === APPROVE_ACTION || a?.action_id === DENY_ACTION);
  const approvalId = action?.value;
  const slackUser = parsed.user?.id;
  if (typeof approvalId !== "string" || !/^apr_[A-Za-z0-9_-]{1,60}$/.test(approvalId)) return undefined;
  if (typeof slackUser !== "string" || !/^[A-Z0-9]{1,40}$/i.test(slackUser)) return undefined;
  return {
    approvalId,
    decision: action.action_id === APPROVE_ACTION ? "approve" : "deny",
    slackUser,
    responseUrl: typeof parsed.response_url === "string" && parsed.response_url.length <= 2000 ? parsed.response_url : undefined,
  };
}

/** An ephemeral reply through the click's response_url (verified: it came in Slack's signed payload). */
async function replyPrivately(ctx: ServiceContext, approval: Approval, url: string, reply: Record<string, unknown>): Promise<void> {
  try {
    await safeFetch(
      url,
      { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(reply) },
      { policy: addressPolicyFor(ctx.config), maxBytes: 16 * 1024, timeoutMs: 10_000, maxRedirects: 0 },
    );
  } catch (error) {
    console.error(JSON.stringify({ level: "error", message: "slack reply not sent", approval_id: approval.id, error: loggableError(error) }));
  }
}
