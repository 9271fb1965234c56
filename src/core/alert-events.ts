import { type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../db/client";
import { type AlertKind, alertEvents, alertSettings } from "../db/schema";
import { insertSelectList } from "../db/insert-select";
import { loggableError } from "../lib/safe-log";

/**
 * Events an account keeps waiting for its channels at most (DESIGN §6.5 Alerts): a channel that
 * stays down cannot make the backlog grow without end. Past it an event is only counted
 * (`alert_settings.dropped_total`), and the next message says how many were not kept.
 */
export const MAX_PENDING_ALERT_EVENTS = 200;
const MAX_SUMMARY_CHARS = 500;

/**
 * Something an account's alerts may tell of. `subject` says what it is about (a run, an agent, a
 * connection, a budget): a repeat of the same subject and kind before every channel was told of it
 * folds into the waiting event (its count and latest summary) rather than adding one.
 */
export interface AlertEvent {
  userId: number;
  kind: AlertKind;
  subject: string;
  /** One line a person reads: what happened and what to do. Never a secret. */
  summary: string;
}

/**
 * The two writes that record an event, for a caller's batch: counting it as dropped when the
 * backlog is full, else inserting it (or folding it into its subject's row). Both do nothing unless
 * the account's alerts are on for this kind, and, with `guard`, unless it holds (a run's lease:
 * the event is written with the end of the run, or not at all).
 */
export function alertEventWrites(db: Db, event: AlertEvent, guard?: SQL): [BatchItem<"sqlite">, BatchItem<"sqlite">] {
  const { userId, kind, subject } = event;
  const now = new Date();
  const wanted = sql`exists (select 1 from alert_settings s, json_each(s.events) e where s.user_id = ${userId} and e.value = ${kind})`;
  const known = sql`exists (select 1 from alert_events where user_id = ${userId} and kind = ${kind} and subject = ${subject})`;
  const full = sql`(select count(*) from alert_events where user_id = ${userId}) >= ${MAX_PENDING_ALERT_EVENTS}`;
  const guarded = guard ? sql` and ${guard}` : sql``;
  const dropped = db
    .update(alertSettings)
    .set({ droppedTotal: sql`dropped_total + 1` })
    .where(sql`user_id = ${userId} and ${wanted} and ${full} and not ${known}${guarded}`);
  const values = { userId, kind, subject, summary: event.summary.slice(0, MAX_SUMMARY_CHARS), createdAt: now, lastAt: now };
  const insert = db
    .insert(alertEvents)
    .select(sql`select ${insertSelectList(alertEvents, values)} where ${wanted} and (not ${full} or ${known})${guarded}`)
    .onConflictDoUpdate({
      target: [alertEvents.userId, alertEvents.kind, alertEvents.subject],
      set: { occurrences: sql`occurrences + 1`, summary: sql`excluded.summary`, lastAt: sql`excluded.last_at` },
    });
  return [dropped, insert];
}

/**
 * Records an event on its own (an agent found stopped, a connection expired, a budget that
 * refused a request). It never fails its caller: what went wrong is logged, and the caller goes on.
 */
export async function recordAlertEvent(db: Db, event: AlertEvent): Promise<void> {
  try {
    await db.batch(alertEventWrites(db, event));
  } catch (error) {
    console.error(JSON.stringify({ level: "error", message: "alert event not recorded", kind: event.kind, error: loggableError(error) }));
  }
}
