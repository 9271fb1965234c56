import { asc, eq, sql } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { type FieldError, validationFailed } from "../core/errors";
import { alertChannels, alertEvents, alertSettings } from "../db/schema";
import { randomToken } from "../lib/crypto";
import { channelProblem } from "../approvals/channels/check";
import { type NotifyChannel, NotifyChannelSchema } from "../approvals/channels/schema";
import { type AlertsChange, type AlertsView, DEFAULT_MIN_INTERVAL_SECONDS } from "./schemas";

/** What the account's webhook signing secret is sealed under: opened only for this account's alerts. */
export const signingSecretContext = (userId: number) => `alerts:${userId}:signing_secret`;

/** The account's alerts with each channel's delivery state; never the signing secret. */
export async function readAlerts(ctx: ServiceContext): Promise<AlertsView> {
  const settings = await ctx.db.select().from(alertSettings).where(eq(alertSettings.userId, ctx.workspace.id)).get();
  if (!settings) return { on: [], notify: [], min_interval_seconds: DEFAULT_MIN_INTERVAL_SECONDS, delivery: [] };
  const channels = await ctx.db
    .select({
      channel: alertChannels.channel,
      lastSentAt: alertChannels.lastSentAt,
      lastError: alertChannels.lastError,
      pending: sql<number>`(select count(*) from alert_events e where e.user_id = ${alertChannels.userId} and e.id > ${alertChannels.sentThrough})`,
    })
    .from(alertChannels)
    .where(eq(alertChannels.userId, ctx.workspace.id))
    .orderBy(asc(alertChannels.position))
    .all();
  return {
    on: settings.events,
    notify: channels.flatMap(({ channel }) => {
      const parsed = NotifyChannelSchema.safeParse(channel);
      return parsed.success ? [parsed.data] : [];
    }),
    min_interval_seconds: settings.minIntervalSeconds,
    delivery: channels.map((row) => ({
      last_sent_at: row.lastSentAt?.toISOString() ?? null,
      pending_events: Number(row.pending),
      last_error: row.lastError,
    })),
  };
}

/**
 * Replaces the account's alerts. Each channel is checked as approvals' are (its connection is the
 * caller's and of the right platform, a webhook URL passes the address policy). A channel that
 * was there before, unchanged, keeps its progress (what it was sent, when); a new one is told of
 * what happens from now on. An empty `on` turns alerts off and forgets what was waiting. The
 * signing secret is issued on the first PUT (and on `rotate_signing_secret`) and answered only then.
 */
export async function writeAlerts(ctx: ServiceContext, change: AlertsChange): Promise<AlertsView> {
  const problems = await Promise.all(change.notify.map((channel) => channelProblem(ctx, channel, { buttons: false })));
  const errors = problems.flatMap((message, i) => (message ? [{ location: "body", field: `notify.${i}`, message } satisfies FieldError] : []));
  if (errors.length) throw validationFailed(errors, "notify names channels that cannot work.");

  const userId = ctx.workspace.id;
  const [current, before, last] = await Promise.all([
    ctx.db.select().from(alertSettings).where(eq(alertSettings.userId, userId)).get(),
    ctx.db.select().from(alertChannels).where(eq(alertChannels.userId, userId)).all(),
    ctx.db
      .select({ id: sql<number | null>`max(${alertEvents.id})` })
      .from(alertEvents)
      .where(eq(alertEvents.userId, userId))
      .get(),
  ]);
  const issued = !current || change.rotate_signing_secret ? `whsec_${randomToken(32)}` : undefined;
  const sealed = issued ? await (await ctx.secrets()).seal(issued, signingSecretContext(userId)) : current!.signingSecret;
  const droppedTotal = current?.droppedTotal ?? 0;
  const kept = new Map(before.map((row) => [canonical(row.channel), row]));
  const rows = change.notify.map((channel, position) => {
    const previous = kept.get(canonical(channel));
    kept.delete(canonical(channel));
    return previous
      ? { ...previous, position, channel, claimedUntil: null }
      : { userId, position, channel, sentThrough: last?.id ?? 0, droppedSeen: droppedTotal, lastSentAt: null, claimedUntil: null, lastError: null };
  });
  const settings = {
    userId,
    events: [...new Set(change.on)],
    minIntervalSeconds: change.min_interval_seconds ?? current?.minIntervalSeconds ?? DEFAULT_MIN_INTERVAL_SECONDS,
    signingSecret: sealed,
    updatedAt: new Date(),
  };
  await ctx.db.batch([
    ctx.db.insert(alertSettings).values(settings).onConflictDoUpdate({ target: alertSettings.userId, set: settings }),
    ctx.db.delete(alertChannels).where(eq(alertChannels.userId, userId)),
    ...rows.map((row) => ctx.db.insert(alertChannels).values(row)),
    // Off: nothing waits any more.
    ...(settings.events.length === 0 ? [ctx.db.delete(alertEvents).where(eq(alertEvents.userId, userId))] : []),
  ]);
  const view = await readAlerts(ctx);
  return issued ? { ...view, signing_secret: issued } : view;
}

/** Turns alerts off and forgets them: settings, channels, what was waiting and the signing secret. */
export async function deleteAlerts(ctx: ServiceContext): Promise<void> {
  const userId = ctx.workspace.id;
  await ctx.db.batch([
    ctx.db.delete(alertChannels).where(eq(alertChannels.userId, userId)),
    ctx.db.delete(alertEvents).where(eq(alertEvents.userId, userId)),
    ctx.db.delete(alertSettings).where(eq(alertSettings.userId, userId)),
  ]);
}

/** A channel as text with its keys in order: the same channel named again compares equal. */
function canonical(channel: NotifyChannel | Record<string, unknown>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(channel).sort(([a], [b]) => a.localeCompare(b))));
}
