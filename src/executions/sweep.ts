import { and, inArray, isNull, lt, notLike, or } from "drizzle-orm";
import type { Runtime } from "../core/context";
import type { ExecutionMessage } from "../core/messages";
import type { Db } from "../db/client";
import { debounceWindows, executionKeys, executions, rateWindows } from "../db/schema";
import { IDEMPOTENCY_KEY_TTL_MS, TRIGGER_KEY_PREFIX, TRIGGER_KEY_TTL_MS } from "./start-keys";

/**
 * How long past its lease (or, never leased, past its last update) an unfinished execution may
 * go before the sweep queues it again. Leases are renewed every few seconds while a step runs
 * and a delayed wake-up is due when its lease ends, so this is only slack for a busy queue.
 */
const STALE_AFTER_MS = 10_000;
const SWEEP_BATCH = 500;

/**
 * The sweep (every minute on the cron, and at start-up under `npm start`): executions whose
 * runner died (lease ran out) or whose queue message was lost (a killed local process loses its
 * queue) are queued again. Duplicates are harmless: the lease admits one runner, and checkpoints
 * keep succeeded steps from running twice.
 */
export async function resumeStaleExecutions({ db, bindings }: Runtime, now = Date.now()): Promise<number> {
  const stale = await db
    .select({ id: executions.id })
    .from(executions)
    .where(
      and(
        inArray(executions.status, ["queued", "running", "waiting"]),
        or(
          lt(executions.leaseUntil, new Date(now - STALE_AFTER_MS)),
          and(isNull(executions.leaseUntil), lt(executions.updatedAt, new Date(now - STALE_AFTER_MS))),
        ),
      ),
    )
    .limit(SWEEP_BATCH)
    .all();
  // A queue takes at most 100 messages per batch.
  for (let i = 0; i < stale.length; i += 100) {
    await bindings.WORKFLOW_RUNS.sendBatch(
      stale.slice(i, i + 100).map(({ id }) => ({ body: { kind: "execution", execution_id: id } satisfies ExecutionMessage })),
    );
  }
  return stale.length;
}

/** Housekeeping: idempotency keys older than a day are forgotten, the triggers' after a week. */
export async function forgetOldExecutionKeys(db: Db, now = Date.now()): Promise<void> {
  await db
    .delete(executionKeys)
    .where(
      or(
        and(lt(executionKeys.createdAt, new Date(now - IDEMPOTENCY_KEY_TTL_MS)), notLike(executionKeys.key, `${TRIGGER_KEY_PREFIX}%`)),
        lt(executionKeys.createdAt, new Date(now - TRIGGER_KEY_TTL_MS)),
      ),
    );
}

/** How long a closed debounce window or a past rate window is kept (only for reading what happened). */
const FLOW_WINDOW_KEPT_MS = 24 * 3600 * 1000;

/** Housekeeping: debounce windows that fired and rate windows that passed a day ago are forgotten. */
export async function forgetOldFlowWindows(db: Db, now = Date.now()): Promise<void> {
  await db.batch([
    db.delete(debounceWindows).where(lt(debounceWindows.firesAt, now - FLOW_WINDOW_KEPT_MS)),
    db.delete(rateWindows).where(lt(rateWindows.windowStart, now - FLOW_WINDOW_KEPT_MS)),
  ]);
}
