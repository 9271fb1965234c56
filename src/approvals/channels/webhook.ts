import { and, eq } from "drizzle-orm";
import type { ServiceContext } from "../../core/context";
import { agents, type Approval } from "../../db/schema";
import { hmacHex } from "../../lib/hmac";
import { randomToken } from "../../lib/crypto";
import { addressPolicyFor } from "../../net/address-policy";
import { safeFetch } from "../../net/safe-fetch";
import { presentApproval } from "../present";
import { ChannelFailure } from "./connection";

export type ApprovalEvent = "approval.requested" | "approval.decided";

const TIMEOUT_MS = 10_000;

/**
 * POSTs `{type, approval}` to the channel's URL, signed with the hub's scheme (DESIGN §3) under the
 * webhook secret of the agent that asked (the one its deploy answered with): `X-Hub-Timestamp`
 * (unix seconds) and `X-Hub-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`. The
 * URL goes through the outbound guard (no private or metadata addresses where the deployment
 * forbids them, every redirect hop checked). One attempt; a receiver that fails is logged.
 */
export async function postApprovalWebhook(ctx: ServiceContext, approval: Approval, url: string, type: ApprovalEvent): Promise<void> {
  const secret = await agentWebhookSecret(ctx, approval);
  const now = Date.now();
  const delivery = `apd_${randomToken(12)}`;
  const body = JSON.stringify({ id: delivery, type, sent_at: new Date(now).toISOString(), approval: presentApproval(approval, now) });
  const timestamp = Math.floor(now / 1000).toString();
  const response = await safeFetch(
    url,
    {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Hub-Event": type,
        "X-Hub-Timestamp": timestamp,
        "X-Hub-Signature": `sha256=${await hmacHex(secret, `${timestamp}.${body}`)}`,
        "X-Hub-Delivery": delivery,
        // The same for one approval's event however often it is sent: a receiver that honours it acts once.
        "Idempotency-Key": `${approval.id}:${type}`,
      },
      body,
    },
    { policy: addressPolicyFor(ctx.config), maxBytes: 64 * 1024, timeoutMs: TIMEOUT_MS, maxRedirects: 0 },
  );
  if (response.status < 200 || response.status >= 300) throw new ChannelFailure(`the receiver answered ${response.status}`);
}

async function agentWebhookSecret(ctx: ServiceContext, approval: Approval): Promise<string> {
  if (!approval.agentId) throw new ChannelFailure("no agent asked, so there is no webhook secret to sign with");
  const agent = await ctx.db
    .select({ sealed: agents.webhookSecret })
    .from(agents)
    .where(and(eq(agents.id, approval.agentId), eq(agents.userId, approval.userId)))
    .get();
  if (!agent) throw new ChannelFailure(`agent ${approval.agentId} no longer exists`);
  return (await ctx.secrets()).open(agent.sealed, `agent:${approval.agentId}:webhook_secret`);
}
