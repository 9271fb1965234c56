import { and, eq } from "drizzle-orm";
import type { ServiceContext } from "../../core/context";
import { agents, type Approval } from "../../db/schema";
import { randomToken } from "../../lib/crypto";
import { addressPolicyFor } from "../../net/address-policy";
import { postSigned } from "../../net/signed-post";
import { presentApproval } from "../present";
import { ChannelFailure } from "./connection";

export type ApprovalEvent = "approval.requested" | "approval.decided";

/**
 * POSTs `{type, approval}` to the channel's URL, signed with the hub's scheme (DESIGN §3) under the
 * webhook secret of the agent that asked (the one its deploy answered with), through the outbound
 * guard (postSigned). One attempt; a receiver that fails is logged.
 */
export async function postApprovalWebhook(ctx: ServiceContext, approval: Approval, url: string, type: ApprovalEvent): Promise<void> {
  const secret = await agentWebhookSecret(ctx, approval);
  const now = Date.now();
  const delivery = `apd_${randomToken(12)}`;
  const body = JSON.stringify({ id: delivery, type, sent_at: new Date(now).toISOString(), approval: presentApproval(approval, now) });
  // The key is the same for one approval's event however often it is sent: a receiver that honours it acts once.
  const message = { event: type, delivery, idempotencyKey: `${approval.id}:${type}`, body };
  const response = await postSigned(url, secret, message, addressPolicyFor(ctx.config), now);
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
