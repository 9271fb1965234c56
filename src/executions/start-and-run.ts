import type { ServiceContext } from "../core/context";
import type { Execution } from "../db/schema";
import type { WorkflowSettings } from "../workflows/steps";
import { runNow } from "./drive";
import { isFinished, newLeaseToken } from "./lease";
import type { EndedRun } from "./outcome";
import { enqueueExecution, handToQueue } from "./queue";
import { logInlineFailure, runAndWait, watchUntilEnded } from "./run-now";
import { type RunRequest, type StartAlongside, type WorkflowRef, insertExecution } from "./start";
import type { IdempotencyKey } from "./start-keys";
import { runWithDeferredStart } from "./waited-start";
import { startUnderFlowControl } from "./flow-control";

/**
 * Starts a run of the workflow as it is now (its version and steps are pinned) and queues it.
 * Schedules and polls come through here; REST, manual runs and webhooks through `startAndRun`,
 * which runs it right away.
 */
export async function startExecution(ctx: ServiceContext, workflow: WorkflowRef, run: RunRequest): Promise<Execution> {
  return (await startQueued(ctx, workflow, run)).execution;
}

/**
 * `startExecution` with an idempotency key: a trigger derives the key from what fired it (an
 * event id, a polled item's key), so a repeated delivery, or a poll redone after a crash, finds
 * the run the first one started (`replayed`) instead of starting another.
 */
export async function startQueued(ctx: ServiceContext, workflow: WorkflowRef, run: RunRequest, idempotency?: IdempotencyKey): Promise<StartedRun> {
  const controlled = await startUnderFlowControl(ctx, workflow, run, { idempotency });
  if (controlled) return controlled;
  const { execution, replayed } = await insertExecution(ctx, workflow, run, undefined, idempotency);
  if (!replayed) await enqueueExecution(ctx.bindings.WORKFLOW_RUNS, execution.id);
  return { execution, replayed };
}

/** Runs one of the caller's workflows now, acting with the caller's credential. */
export function runWorkflow(ctx: ServiceContext, workflowId: number, input: Record<string, unknown>, options: RunOptions = {}): Promise<StartedRun> {
  return startAndRun(ctx, workflowId, { input }, options);
}

export interface RunOptions {
  /** `Prefer: wait=<seconds>`: answer with the finished execution if it ends within this time. */
  waitSeconds?: number;
  /** `Idempotency-Key`: the key, and what the request asked for. */
  idempotency?: IdempotencyKey;
  /** Statements to write in the start's own transaction (a webhook's spent signature and its events-log row). */
  also?: StartAlongside;
}

export interface StartedRun {
  execution: Execution;
  /** The run as it ended, when the caller asked to wait and it ended in time. */
  finished?: EndedRun;
  /** The idempotency key had started this run before: nothing new was started. */
  replayed?: boolean;
}

/**
 * Starts a run and drives it right away in this invocation (a delayed queue message is the
 * backstop), waiting for its end when asked to.
 */
export async function startAndRun(ctx: ServiceContext, workflow: WorkflowRef, run: RunRequest, options: RunOptions): Promise<StartedRun> {
  // Debounced or rate-limited starts may be queued for later (or skipped: StartSkipped).
  const controlled = await startUnderFlowControl(ctx, workflow, run, options);
  if (controlled) {
    const { execution, replayed } = controlled;
    const finished = options.waitSeconds
      ? isFinished(execution.status)
        ? { execution }
        : await watchUntilEnded(ctx, execution.id, options.waitSeconds)
      : undefined;
    return { execution, finished, replayed };
  }
  // A caller waiting for the end of a run of one of its workflows (no key, not a child run):
  // the start can go with the run's first write.
  if (typeof workflow === "number" && options.waitSeconds && options.waitSeconds > 0 && !options.idempotency && !options.also && !run.child) {
    const started = await runWithDeferredStart(ctx, workflow, run, options.waitSeconds);
    if (started) return started;
  }
  const token = newLeaseToken();
  const { execution, replayed } = await insertExecution(ctx, workflow, run, token, options.idempotency, options.also);
  if (replayed) {
    // The first request's answer again: with a wait, the run once it has ended (whoever drives it).
    if (!options.waitSeconds) return { execution, replayed };
    const finished = isFinished(execution.status) ? { execution } : await watchUntilEnded(ctx, execution.id, options.waitSeconds);
    return { execution, finished, replayed };
  }
  if ((execution.settings as WorkflowSettings).concurrency) {
    // The workflow limits how many of its runs go at once: the queue's consumer takes turns.
    const queued = await handToQueue(ctx, execution, token);
    const finished = options.waitSeconds ? await watchUntilEnded(ctx, execution.id, options.waitSeconds) : undefined;
    return { execution: queued, finished };
  }
  if (options.waitSeconds && options.waitSeconds > 0) {
    return { execution, finished: await runAndWait(ctx, execution, token, options.waitSeconds) };
  }
  ctx.waitUntil(runNow(ctx, execution, token).catch((error) => logInlineFailure(execution.id, error)));
  return { execution };
}
