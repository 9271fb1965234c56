import { and, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { delegatedContext, type Runtime } from "../core/context";
import type { Db } from "../db/client";
import { executionSteps, executions, type Execution, type ExecutionStep } from "../db/schema";
import { loggableError } from "../lib/safe-log";
import type { Step, WorkflowSettings } from "../workflows/steps";
import type { DeferredStart } from "./deferred-start";
import { LEASE_MS, isFinished, newLeaseToken } from "./lease";
import { type DriveOutcome, Pause } from "./outcome";
import { keyHashOf } from "./flow-keys";
import { enqueueExecution } from "./queue";
import { ExecutionRun } from "./run";

/**
 * Runs an execution as far as it can go now (a queue message, the sweep). Only the holder of the
 * execution's lease runs steps; every step's outcome is checkpointed before the next side effect,
 * so a redelivered or resumed message replays succeeded steps from their checkpoints and never
 * runs them again.
 */
export async function driveExecution(runtime: Runtime, executionId: string): Promise<DriveOutcome> {
  const { db } = runtime;
  // Most messages (backstops of runs that ended inline) find the run finished: read only what
  // decides that; the lease update below returns the whole row.
  const execution = await db
    .select({
      status: executions.status,
      leaseToken: executions.leaseToken,
      leaseUntil: executions.leaseUntil,
      startedAt: executions.startedAt,
      workflowId: executions.workflowId,
      settings: executions.settings,
    })
    .from(executions)
    .where(eq(executions.id, executionId))
    .get();
  if (!execution || isFinished(execution.status)) return { done: true };
  const settings = execution.settings as WorkflowSettings;
  const concurrency = settings.concurrency;
  // With a concurrency_key the slots are counted per key value: the run's own, set with its lease.
  const concurrencyKey = concurrency && settings.concurrency_key ? await concurrencyKeyOf(db, executionId, settings.concurrency_key) : null;

  const token = newLeaseToken();
  const now = Date.now();
  const leased = await db
    .update(executions)
    .set({
      leaseToken: token,
      leaseUntil: new Date(now + LEASE_MS),
      status: "running",
      startedAt: execution.startedAt ?? new Date(now),
      updatedAt: new Date(now),
      ...(concurrencyKey ? { concurrencyKey } : {}),
    })
    .where(
      and(
        eq(executions.id, executionId),
        // A waiting run's lease time is its event's timeout: it is taken back once that passes.
        inArray(executions.status, ["queued", "running", "waiting"]),
        or(isNull(executions.leaseUntil), lt(executions.leaseUntil, new Date(now))),
        concurrency ? slotFree(execution.workflowId, executionId, concurrency, now, concurrencyKey) : undefined,
      ),
    )
    .returning();
  if (leased.length === 0) {
    const free = !execution.leaseUntil || execution.leaseUntil.getTime() < now;
    // Leasable but for the workflow's concurrency: its turn comes when a slot frees up.
    if (concurrency && free) return { done: false, resumeInSeconds: CONCURRENCY_RECHECK_SECONDS };
    // Someone holds the lease. While it is running the run, this message comes back just after
    // the lease would run out, so a runner that dies (an isolate cut off mid-run) is followed
    // within one lease. A paused run (no holder) has its own wake-up message queued: this one
    // is a duplicate and is dropped; should that be lost, the sweep resumes the run.
    const heldUntil = execution.leaseToken && execution.leaseUntil ? execution.leaseUntil.getTime() : 0;
    return heldUntil > now ? { done: false, resumeInSeconds: Math.ceil((heldUntil - now) / 1000) + 1 } : { done: true };
  }
  return walkLeased(runtime, leased[0]!, token, await loadCheckpoints(db, executionId));
}

/** How soon a run held back by its workflow's `settings.concurrency` looks for a free slot again. */
const CONCURRENCY_RECHECK_SECONDS = 2;

/** Fewer than `limit` of the workflow's other runs (of the same key, with one) hold a live lease (are running a step now). */
function slotFree(workflowId: number, executionId: string, limit: number, now: number, key: string | null) {
  const sameKey = key === null ? sql`` : sql` and concurrency_key = ${key}`;
  return sql`(select count(*) from executions where workflow_id = ${workflowId}${sameKey} and id != ${executionId} and lease_token is not null and lease_until > ${now}) < ${limit}`;
}

/** The hash of the run's concurrency key, from its input (read only for workflows that have one). */
async function concurrencyKeyOf(db: Db, executionId: string, template: string): Promise<string> {
  const row = await db.select({ input: executions.input }).from(executions).where(eq(executions.id, executionId)).get();
  return keyHashOf(template, row?.input ?? {});
}

/**
 * Runs a new execution whose lease this invocation took when it inserted the row (see
 * `startAndRun`): there is nothing to read back and no checkpoint yet.
 */
export function driveNewExecution(runtime: Runtime, execution: Execution, token: string, start?: DeferredStart): Promise<DriveOutcome> {
  return walkLeased(runtime, execution, token, new Map(), start);
}

async function walkLeased(
  runtime: Runtime,
  execution: Execution,
  token: string,
  checkpoints: Map<string, ExecutionStep>,
  start?: DeferredStart,
): Promise<DriveOutcome> {
  // Steps act for the run's owner, with the credential that started it.
  const ctx = delegatedContext(runtime, execution.userId, execution.credentialId);
  const run = new ExecutionRun(ctx, execution, token, checkpoints, runNow, start);
  try {
    await run.walk(execution.steps as Step[]);
    return await run.end({ status: "succeeded" });
  } catch (error) {
    if (error instanceof Pause) return error.outcome;
    throw error;
  }
}

async function loadCheckpoints(db: Db, executionId: string): Promise<Map<string, ExecutionStep>> {
  const rows = await db.select().from(executionSteps).where(eq(executionSteps.executionId, executionId)).all();
  return new Map(rows.map((row) => [row.stepKey, row]));
}

/**
 * A run started inline that has not ended after this long gets its backstop message. Most runs
 * (pure steps, a few quick tool calls) end sooner and send none: the message cost a local run
 * about a quarter of its throughput. A runner that dies earlier leaves its row leased until the
 * lease runs out, and the scheduled sweep (every minute) takes it over from its checkpoints.
 */
export const BACKSTOP_AFTER_MS = 1_000;

/**
 * The backstop message of a run started inline arrives once the lease taken at insert would have
 * run out: the run has ended (the message finds it finished and does nothing), its runner died
 * (the message takes over from the checkpoints), or it is still running (the message comes back
 * when the renewed lease would run out).
 */
const BACKSTOP_DELAY_SECONDS = Math.ceil(LEASE_MS / 1000) + 1;

/**
 * Runs a just-started execution in the invocation that accepted it, instead of waiting for the
 * queue to deliver its message. `startAndRun` inserted the row already leased to `token`, so the
 * run starts without reading anything back. A pause (a delay, a retry) goes back to the queue as
 * a delayed message, as it would from the consumer.
 */
export async function runNow(runtime: Runtime, execution: Execution, token: string, start?: DeferredStart): Promise<DriveOutcome> {
  let backstop: Promise<void> | undefined;
  // Sent beside the run, never waited for: without it, the sweep still finds the run once its
  // lease has run out. A run whose start is not written yet has no row for a message to find.
  const sendBackstop = () => {
    if (start && !start.written) return;
    backstop ??= enqueueExecution(runtime.bindings.WORKFLOW_RUNS, execution.id, BACKSTOP_DELAY_SECONDS).catch((error) =>
      console.error(JSON.stringify({ level: "error", message: "backstop message not sent", execution_id: execution.id, error: loggableError(error) })),
    );
    runtime.waitUntil(backstop);
  };
  const timer = setTimeout(sendBackstop, BACKSTOP_AFTER_MS);
  try {
    const outcome = await driveNewExecution(runtime, execution, token, start);
    if (!outcome.done) await enqueueExecution(runtime.bindings.WORKFLOW_RUNS, execution.id, outcome.resumeInSeconds);
    return outcome;
  } catch (error) {
    // The run did not end here: its backstop goes now.
    sendBackstop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
