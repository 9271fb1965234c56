import { and, asc, eq, gte, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { Runtime } from "../core/context";
import type { Db } from "../db/client";
import { executionNotifications, executions, workflows } from "../db/schema";
import { hmacHex } from "../lib/hmac";
import { randomToken } from "../lib/crypto";
import { insertSelectList } from "../db/insert-select";
import { loggableError } from "../lib/safe-log";
import { WINDOW_SECONDS, consumeRateLimits, exhaustedOf } from "../http/rate-limit";
import { addressPolicyFor } from "../net/address-policy";
import { OutboundRefused, safeFetch } from "../net/safe-fetch";
import type { NotificationMessage, WorkflowRunMessage } from "../core/messages";
import { presentExecution } from "./present";
import { notifySecretContext } from "../workflows/service";

/** Attempts before a notification is given up (10 s, 30 s, 90 s, 270 s, 810 s apart). */
export const MAX_NOTIFY_ATTEMPTS = 6;
const FIRST_RETRY_SECONDS = 10;
/** How long a sender holds a notification; one that died is retried after this. */
const CLAIM_MS = 30_000;
const TIMEOUT_MS = 10_000;
/** The longest a queue message can be delayed; a notification due later is queued again by the sweep. */
const MAX_DELAY_SECONDS = 12 * 60 * 60;

/**
 * The notification of a finished run, written in the batch that ends the run (guarded like its
 * other writes by `stillHeld`), so a run never ends without it; sent right after, and by the
 * cron sweep should that message be lost.
 */
export function notificationInsert(db: Db, executionId: string, event: string, url: string, stillHeld: SQL) {
  const id = `ntf_${randomToken(12)}`;
  const values = { id, executionId, event, url, nextAttemptAt: new Date() };
  const insert = db.insert(executionNotifications).select(sql`select ${insertSelectList(executionNotifications, values)} where ${stillHeld}`);
  return { id, insert };
}

export function enqueueNotification(queue: Queue<WorkflowRunMessage>, id: string, delaySeconds = 0) {
  return queue.send({ kind: "notification", notification_id: id } satisfies NotificationMessage, delaySeconds ? { delaySeconds } : undefined);
}

/**
 * Sends one notification: a signed POST of the run to the workflow's notify URL, through the
 * outbound guard (no private addresses). A 2xx delivers it; anything else is retried with
 * backoff up to MAX_NOTIFY_ATTEMPTS, each attempt logged for the execution's detail. Claimed
 * first, so two deliveries of the message never send it twice at once.
 */
export async function deliverNotification(runtime: Runtime, id: string): Promise<void> {
  const { db } = runtime;
  const now = Date.now();
  // The claim counts the attempt (a sender that dies mid-send has spent it) and its end time is
  // the claim's token: only this sender may record the outcome.
  const claimedUntil = new Date(now + CLAIM_MS);
  const [claimed] = await db
    .update(executionNotifications)
    .set({ status: "sending", nextAttemptAt: claimedUntil, attempts: sql`${executionNotifications.attempts} + 1` })
    .where(
      and(
        eq(executionNotifications.id, id),
        or(eq(executionNotifications.status, "pending"), eq(executionNotifications.status, "sending")),
        lte(executionNotifications.nextAttemptAt, new Date(now)),
        lt(executionNotifications.attempts, MAX_NOTIFY_ATTEMPTS),
      ),
    )
    .returning();
  if (!claimed) return; // delivered, given up, not due yet, or someone else is sending it
  const row = await db
    .select({ execution: executions, secret: workflows.notifySecret })
    .from(executions)
    .innerJoin(workflows, eq(workflows.id, executions.workflowId))
    .where(eq(executions.id, claimed.executionId))
    .get();

  // Every attempt to send counts against its owner's limit, so one request that sets off many
  // runs (workflow steps, for_each) cannot make the hub send POSTs without end.
  if (row?.secret) {
    const dueIn = await notifyLimitWait(runtime, row.execution.userId);
    if (dueIn !== undefined) return postpone(runtime, claimed, claimedUntil, now, dueIn);
  }

  let statusCode: number | null = null;
  let error: string | null = null;
  // A URL the outbound guard refuses (a private or metadata address) is refused every time.
  let refused = false;
  if (!row?.secret) {
    error = "The workflow no longer sends notifications.";
  } else {
    try {
      const secret = await (await runtime.secrets()).open(row.secret, notifySecretContext(row.execution.workflowId));
      const body = JSON.stringify({
        id: claimed.id,
        event: claimed.event,
        sent_at: new Date(now).toISOString(),
        execution: await presentExecution(db, row.execution, false),
      });
      const timestamp = Math.floor(now / 1000).toString();
      const response = await safeFetch(
        claimed.url,
        {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            "X-Hub-Event": claimed.event,
            "X-Hub-Timestamp": timestamp,
            "X-Hub-Signature": `sha256=${await hmacHex(secret, `${timestamp}.${body}`)}`,
            "X-Hub-Delivery": claimed.id,
            // The same on every attempt: a receiver that honours it sees the event once.
            "Idempotency-Key": claimed.id,
          },
          body,
        },
        { policy: addressPolicyFor(runtime.config), maxBytes: 64 * 1024, timeoutMs: TIMEOUT_MS, maxRedirects: 0 },
      );
      statusCode = response.status;
      if (response.status < 200 || response.status >= 300) error = `The receiver answered ${response.status}.`;
    } catch (thrown) {
      refused = thrown instanceof OutboundRefused;
      error = thrown instanceof Error ? thrown.message : String(thrown);
    }
  }

  const attempts = claimed.attempts;
  const log = [...claimed.attemptLog, { at: new Date(now).toISOString(), status_code: statusCode, error }];
  const retryIn = FIRST_RETRY_SECONDS * 3 ** (attempts - 1);
  const giveUp = error !== null && (attempts >= MAX_NOTIFY_ATTEMPTS || !row?.secret || refused);
  await db
    .update(executionNotifications)
    .set({
      attempts,
      attemptLog: log,
      ...(error === null
        ? { status: "delivered" as const, deliveredAt: new Date() }
        : giveUp
          ? { status: "failed" as const }
          : { status: "pending" as const, nextAttemptAt: new Date(now + retryIn * 1000) }),
    })
    .where(and(eq(executionNotifications.id, id), eq(executionNotifications.status, "sending"), eq(executionNotifications.nextAttemptAt, claimedUntil)));
  if (error !== null && !giveUp) await enqueueNotification(runtime.bindings.WORKFLOW_RUNS, id, retryIn);
}

/**
 * Seconds until the owner's notification limit has room for this one, or undefined when it has
 * room now (the hit is then spent). Those over the limit queue up: each takes a place in line
 * for the window, and the place says which later window it is due in, so a backlog is sent a
 * limit's worth per minute instead of all of it being tried again every minute.
 */
async function notifyLimitWait(runtime: Runtime, userId: number): Promise<number | undefined> {
  const { RATE_LIMITER } = runtime.bindings;
  const limit = runtime.config.limits.notificationsPerMinute;
  const subject = `user:${userId}`;
  const results = await consumeRateLimits(RATE_LIMITER, subject, [{ name: "notify", limit }]);
  const refused = exhaustedOf(results);
  if (!refused) return undefined;
  // Straight to the object (not leased): places must be exact to spread the line evenly.
  const [line] = await RATE_LIMITER.get(RATE_LIMITER.idFromName(subject)).hit([{ name: "notify_waiting", limit: Number.MAX_SAFE_INTEGER }], WINDOW_SECONDS);
  const place = line ? line.limit - line.remaining - 1 : 0;
  return Math.min(MAX_DELAY_SECONDS, refused.resetSeconds + Math.floor(place / limit) * WINDOW_SECONDS);
}

/**
 * Over the limit: the claim is undone, attempt included (the receiver was never asked, so its
 * retries are not spent), and the notification falls due when the limit has room. The row says
 * when (the sweep finds it should the message be lost); a queue retry would instead spend the
 * message's own retries and drop it in the end.
 */
async function postpone(runtime: Runtime, claimed: { id: string }, claimedUntil: Date, now: number, dueIn: number): Promise<void> {
  const updated = await runtime.db
    .update(executionNotifications)
    .set({ status: "pending", attempts: sql`${executionNotifications.attempts} - 1`, nextAttemptAt: new Date(now + dueIn * 1000) })
    .where(and(eq(executionNotifications.id, claimed.id), eq(executionNotifications.status, "sending"), eq(executionNotifications.nextAttemptAt, claimedUntil)))
    .returning({ id: executionNotifications.id });
  if (updated.length) await enqueueNotification(runtime.bindings.WORKFLOW_RUNS, claimed.id, dueIn);
}

/** Handles a `notification` message; a failure is logged and left to the sweep (the row says when it is due). */
export async function handleNotificationMessage(runtime: Runtime, id: string): Promise<void> {
  try {
    await deliverNotification(runtime, id);
  } catch (error) {
    console.error(JSON.stringify({ level: "error", message: "notification delivery failed", notification_id: id, error: loggableError(error) }));
  }
}

/** The sweep: notifications due (or claimed by a sender that died) whose message was lost are queued again. */
export async function resumeDueNotifications({ db, bindings }: Runtime, now = Date.now()): Promise<number> {
  // A sender that died holding the last attempt leaves nothing to try: that notification failed.
  await db
    .update(executionNotifications)
    .set({ status: "failed" })
    .where(
      and(
        eq(executionNotifications.status, "sending"),
        lte(executionNotifications.nextAttemptAt, new Date(now)),
        gte(executionNotifications.attempts, MAX_NOTIFY_ATTEMPTS),
      ),
    );
  const due = await db
    .select({ id: executionNotifications.id })
    .from(executionNotifications)
    .where(
      and(
        or(eq(executionNotifications.status, "pending"), eq(executionNotifications.status, "sending")),
        // Slack for the message that is already on its way.
        lte(executionNotifications.nextAttemptAt, new Date(now - 10_000)),
        lt(executionNotifications.attempts, MAX_NOTIFY_ATTEMPTS),
      ),
    )
    .limit(100)
    .all();
  if (due.length) {
    await bindings.WORKFLOW_RUNS.sendBatch(due.map(({ id }) => ({ body: { kind: "notification", notification_id: id } satisfies NotificationMessage })));
  }
  return due.length;
}

/** A run's notifications and each attempt, for its detail. */
export async function presentNotifications(db: Db, executionId: string) {
  const rows = await db
    .select()
    .from(executionNotifications)
    .where(eq(executionNotifications.executionId, executionId))
    .orderBy(asc(executionNotifications.createdAt))
    .all();
  return rows.map((row) => ({
    id: row.id,
    event: row.event,
    url: row.url,
    status: row.status === "sending" ? ("pending" as const) : row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === "pending" || row.status === "sending" ? row.nextAttemptAt.toISOString() : null,
    delivered_at: row.deliveredAt?.toISOString() ?? null,
    attempt_log: row.attemptLog,
  }));
}
