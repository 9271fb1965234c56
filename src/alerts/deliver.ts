import { and, asc, eq, gt, isNull, lt, lte, or, sql } from "drizzle-orm";
import { type Runtime, delegatedContext } from "../core/context";
import { alertChannels, alertEvents, alertSettings, type AlertEventRow } from "../db/schema";
import { randomToken } from "../lib/crypto";
import { loggableError } from "../lib/safe-log";
import { addressPolicyFor } from "../net/address-policy";
import { postSigned } from "../net/signed-post";
import { ChannelFailure } from "../approvals/channels/connection";
import { sendChannelEmail } from "../approvals/channels/email";
import { NotifyChannelSchema } from "../approvals/channels/schema";
import { postSlackMessage } from "../approvals/channels/slack";
import { type Digest, buildDigest, emailDigest, slackDigest } from "./digest";
import { signingSecretContext } from "./settings";

/** How long a sender holds a channel; one that died is free again after this. */
const CLAIM_MS = 60_000;
/** Channels one sweep sends to at most; the rest wait for the next minute. */
const MAX_CHANNELS_PER_SWEEP = 50;
/** Events one message reads at most (the backlog is capped below this). */
const MAX_EVENTS_READ = 500;

type DueChannel = { userId: number; position: number };

/**
 * The every-minute sweep (DESIGN §6.5 Alerts): each channel whose interval has passed since its
 * last message and that has something new is sent one digest of it. A channel is claimed first,
 * so two sweeps never send the same digest; it counts as sent (its `sent_through` moves on) only
 * after the send succeeded, so a crash or a failed send loses nothing: the next sweep tries again
 * with what has come since added. Events every channel was sent are then forgotten.
 */
export async function sendDueAlerts(runtime: Runtime, now = Date.now()): Promise<number> {
  const due = await runtime.db
    .select({ userId: alertChannels.userId, position: alertChannels.position })
    .from(alertChannels)
    .innerJoin(alertSettings, eq(alertSettings.userId, alertChannels.userId))
    .where(
      and(
        intervalPassed(now),
        or(isNull(alertChannels.claimedUntil), lt(alertChannels.claimedUntil, new Date(now))),
        or(
          sql`exists (select 1 from alert_events e where e.user_id = ${alertChannels.userId} and e.id > ${alertChannels.sentThrough})`,
          gt(alertSettings.droppedTotal, alertChannels.droppedSeen),
        ),
      ),
    )
    .limit(MAX_CHANNELS_PER_SWEEP)
    .all();
  const sent = await Promise.all(due.map((channel) => sendDigest(runtime, channel, now)));
  return sent.filter(Boolean).length;
}

/** The channel's last message went at least its account's interval ago (or never). */
const intervalPassed = (now: number) =>
  or(
    isNull(alertChannels.lastSentAt),
    lte(alertChannels.lastSentAt, sql`${now} - (select s.min_interval_seconds from alert_settings s where s.user_id = ${alertChannels.userId}) * 1000`),
  );

/** Claims one channel, sends it what waits, and records the outcome; true when a message went. */
async function sendDigest(runtime: Runtime, { userId, position }: DueChannel, now: number): Promise<boolean> {
  const { db } = runtime;
  const claimedUntil = new Date(now + CLAIM_MS);
  const here = and(eq(alertChannels.userId, userId), eq(alertChannels.position, position));
  const [claimed] = await db
    .update(alertChannels)
    .set({ claimedUntil })
    .where(and(here, intervalPassed(now), or(isNull(alertChannels.claimedUntil), lt(alertChannels.claimedUntil, new Date(now)))))
    .returning();
  if (!claimed) return false;
  const held = and(here, eq(alertChannels.claimedUntil, claimedUntil));
  try {
    const [settings, events] = await Promise.all([
      db.select().from(alertSettings).where(eq(alertSettings.userId, userId)).get(),
      db
        .select()
        .from(alertEvents)
        .where(and(eq(alertEvents.userId, userId), gt(alertEvents.id, claimed.sentThrough)))
        .orderBy(asc(alertEvents.id))
        .limit(MAX_EVENTS_READ)
        .all(),
    ]);
    const notRecorded = settings ? settings.droppedTotal - claimed.droppedSeen : 0;
    if (!settings || (events.length === 0 && notRecorded <= 0)) {
      await db.update(alertChannels).set({ claimedUntil: null }).where(held);
      return false;
    }
    const digest = buildDigest(events, {
      id: `alr_${randomToken(12)}`,
      now: new Date(now),
      since: claimed.lastSentAt,
      notRecorded,
      publicUrl: runtime.config.publicUrl,
    });
    await send(runtime, userId, claimed.channel, settings.signingSecret, digest, events);
    await db.batch([
      db
        .update(alertChannels)
        .set({
          sentThrough: events.at(-1)?.id ?? claimed.sentThrough,
          droppedSeen: settings.droppedTotal,
          lastSentAt: new Date(now),
          claimedUntil: null,
          lastError: null,
        })
        .where(held),
      // What every channel of the account has been sent is not needed any more.
      db
        .delete(alertEvents)
        .where(and(eq(alertEvents.userId, userId), lte(alertEvents.id, sql`(select min(c.sent_through) from alert_channels c where c.user_id = ${userId})`))),
    ]);
    return true;
  } catch (error) {
    // Not sent: the events stay for this channel, and the next sweep tries again.
    const reason = error instanceof ChannelFailure ? error.message : loggableError(error);
    console.error(JSON.stringify({ level: "error", message: "alert digest not sent", user_id: userId, channel: position, error: reason }));
    await db
      .update(alertChannels)
      .set({ claimedUntil: null, lastError: reason.slice(0, 500) })
      .where(held)
      .catch(() => undefined);
    return false;
  }
}

/** One digest through one channel, with the senders approvals use. */
async function send(runtime: Runtime, userId: number, stored: Record<string, unknown>, sealedSecret: string, digest: Digest, events: AlertEventRow[]) {
  const parsed = NotifyChannelSchema.safeParse(stored);
  if (!parsed.success) throw new ChannelFailure("the stored channel is no longer valid; set the alerts again");
  const channel = parsed.data;
  // The account's own connections, as a run of theirs would use them.
  const ctx = delegatedContext(runtime, userId, "alerts");
  if (channel.via === "slack") {
    await postSlackMessage(ctx, channel, slackDigest(digest));
  } else if (channel.via === "email") {
    await sendChannelEmail(ctx, channel, emailDigest(digest, channel.to));
  } else {
    const secret = await (await runtime.secrets()).open(sealedSecret, signingSecretContext(userId));
    const body = JSON.stringify(digest);
    // The same for every attempt at these events, however often it is tried.
    const idempotencyKey = `alerts:${userId}:${events[0]?.id ?? 0}-${events.at(-1)?.id ?? 0}`;
    const response = await postSigned(channel.url, secret, { event: digest.type, delivery: digest.id, idempotencyKey, body }, addressPolicyFor(runtime.config));
    if (response.status < 200 || response.status >= 300) throw new ChannelFailure(`the receiver answered ${response.status}`);
  }
}
