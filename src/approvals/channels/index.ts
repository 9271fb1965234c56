import { and, eq } from "drizzle-orm";
import type { ServiceContext } from "../../core/context";
import { approvals, type Approval } from "../../db/schema";
import { loggableError } from "../../lib/safe-log";
import { ChannelFailure } from "./connection";
import { type ApprovalAbout, aboutApproval } from "./describe";
import { approvalEmail, sendChannelEmail } from "./email";
import { issueLinks, linkUrl } from "./link-tokens";
import type { NotifyChannel } from "./schema";
import { postSlackRequest, updateSlackRequest } from "./slack";
import { type NotifyEntry, entriesOf } from "./state";
import { postApprovalWebhook } from "./webhook";

/**
 * Tells each channel of a new approval: a Slack message with Approve and Deny buttons, an email
 * with a link to the approval's page, a signed webhook. The channels go at once and apart: one
 * that fails is logged (never with a secret) and leaves the others, and the approval, as they are.
 * What a channel needs later (the Slack message, the email recipient's link hash) is kept in the
 * approval's `notify`. `origin` is the link's base when PUBLIC_URL is not set.
 */
export async function announceApproval(ctx: ServiceContext, approval: Approval, channels: NotifyChannel[], options: { origin?: string } = {}): Promise<void> {
  await announce(ctx, approval, channels, options).catch((error) => logFailure(approval, undefined, "request", error));
}

async function announce(ctx: ServiceContext, approval: Approval, channels: NotifyChannel[], options: { origin?: string }): Promise<void> {
  const about = await aboutApproval(ctx, approval);
  const origin = ctx.config.publicUrl ?? options.origin;
  const entries: NotifyEntry[] = channels.map((channel) => ({ ...channel }));
  const links = new Map<number, string>();
  const emails = entries.flatMap((entry, index) => (entry.via === "email" ? [index] : []));
  if (emails.length > 0 && origin) {
    // Stored before any email goes, so a link works the moment it arrives.
    const issued = await issueLinks(emails.length);
    emails.forEach((index, n) => {
      const recipient = issued.recipients[n]!;
      entries[index] = { ...entries[index]!, recipient_hash: recipient.hash };
      links.set(index, linkUrl(origin, recipient.token));
    });
    const [stored] = await ctx.db
      .update(approvals)
      .set({ linkTokenHash: issued.lookupHash, notify: entries })
      .where(and(eq(approvals.id, approval.id), eq(approvals.status, "pending")))
      .returning({ id: approvals.id });
    if (!stored) return; // decided (or expired) before anyone was told
  }

  const told = await Promise.all(
    entries.map(async (entry, index): Promise<NotifyEntry> => {
      try {
        if (entry.via === "slack") return { ...entry, message: await postSlackRequest(ctx, approval, entry, about) };
        if (entry.via === "email") {
          const link = links.get(index);
          if (!link) throw new ChannelFailure("the hub does not know its public address for the link; set the PUBLIC_URL var");
          await sendChannelEmail(ctx, entry, approvalEmail(approval, about, entry.to, link));
        } else {
          await postApprovalWebhook(ctx, approval, entry.url, "approval.requested");
        }
      } catch (error) {
        logFailure(approval, { entry, index }, "request", error);
      }
      return entry;
    }),
  );

  if (!told.some((entry) => entry.via === "slack" && entry.message)) return;
  const [row] = await ctx.db.update(approvals).set({ notify: told }).where(eq(approvals.id, approval.id)).returning();
  // Decided while the messages were going out: that decision found no message to rewrite yet.
  if (row && row.status !== "pending") await settleSlack(ctx, row, about);
}

/**
 * Updates what the channels were sent once the approval is decided (or has expired): the Slack
 * message says who decided what and loses its buttons, and webhooks get `approval.decided`. The
 * email link needs nothing: it died with the decision.
 */
export async function settleAnnouncements(ctx: ServiceContext, approval: Approval): Promise<void> {
  const about = await aboutApproval(ctx, approval).catch((error) => logFailure(approval, undefined, "decision", error));
  if (!about) return;
  await Promise.all([
    settleSlack(ctx, approval, about),
    ...entriesOf(approval.notify).map(async (entry, index) => {
      if (entry.via !== "webhook") return;
      await postApprovalWebhook(ctx, approval, entry.url, "approval.decided").catch((error) => logFailure(approval, { entry, index }, "decision", error));
    }),
  ]);
}

async function settleSlack(ctx: ServiceContext, approval: Approval, about: ApprovalAbout): Promise<void> {
  await Promise.all(
    entriesOf(approval.notify).map(async (entry, index) => {
      if (entry.via !== "slack" || !entry.message) return;
      await updateSlackRequest(ctx, approval, entry, entry.message, about).catch((error) => logFailure(approval, { entry, index }, "decision", error));
    }),
  );
}

/** Which channel failed (or all, before any was tried) and why, in words fit for a log: no URL (it may carry a token), no secret. */
function logFailure(approval: Approval, channel: { entry: NotifyEntry; index: number } | undefined, stage: "request" | "decision", error: unknown): undefined {
  const entry = channel?.entry;
  console.error(
    JSON.stringify({
      level: "error",
      message: channel ? `approval channel not told of the ${stage}` : `approval channels not told of the ${stage}`,
      approval_id: approval.id,
      ...(channel ? { channel: channel.index, via: channel.entry.via } : {}),
      ...(entry && entry.via !== "webhook" ? { connection_id: entry.connection_id } : {}),
      error: loggableError(error),
    }),
  );
  return undefined;
}
