import { eq } from "drizzle-orm";
import type { Runtime } from "../core/context";
import { executions, type Execution } from "../db/schema";
import { loggableError } from "../lib/safe-log";
import type { DeferredStart } from "./deferred-start";
import { driveExecution, runNow } from "./drive";
import { isFinished } from "./lease";
import type { DriveOutcome, EndedRun } from "./outcome";
import { enqueueExecution } from "./queue";

/** The longest `Prefer: wait` honoured (DESIGN.md §4). */
export const MAX_WAIT_SECONDS = 60;
const POLL_MS = 100;

/**
 * Carries on an existing run (resumed by an event, or a retry with checkpoints to reuse) in this
 * invocation's background, with a queue message sent beside it as the backstop: whichever takes
 * the lease first runs it, the other finds it taken or finished.
 */
export function resumeNow(runtime: Runtime, executionId: string): void {
  runtime.waitUntil(
    Promise.all([
      enqueueExecution(runtime.bindings.WORKFLOW_RUNS, executionId),
      driveExecution(runtime, executionId).then((outcome) =>
        outcome.done ? undefined : enqueueExecution(runtime.bindings.WORKFLOW_RUNS, executionId, outcome.resumeInSeconds),
      ),
    ]).catch((error) => logInlineFailure(executionId, error)),
  );
}

/**
 * Runs the execution now and waits up to `seconds` for it to end, whoever drives it: returns the
 * ended run, or undefined when it is still going (it carries on in the background).
 */
export async function runAndWait(runtime: Runtime, execution: Execution, token: string, seconds: number, start?: DeferredStart): Promise<EndedRun | undefined> {
  const deadline = Date.now() + Math.min(seconds, MAX_WAIT_SECONDS) * 1000;
  // A drive that fails is the backstop's to finish (the queue message, the sweep); it is only
  // logged. One that failed before its deferred start was written started nothing: the caller hears.
  const running = runNow(runtime, execution, token, start).catch((error): DriveOutcome => {
    if (start && !start.written) throw error;
    logInlineFailure(execution.id, error);
    return { done: true };
  });
  const outcome = await Promise.race([running, sleep(deadline - Date.now()).then(() => undefined)]);
  if (outcome === undefined) {
    // The answer names the run, so it must exist: wait for its start to be written (or refused).
    if (start && !start.written) await Promise.race([start.settled, running]);
    // The drive in progress keeps going after the answer has gone.
    runtime.waitUntil(running);
    return undefined;
  }
  if (outcome.done && outcome.ended) return outcome.ended;
  // The run paused (a delay, a retry), failed here, or another runner took it over: watch the row until the deadline.
  return watchUntil(runtime, execution.id, deadline);
}

/**
 * Runs a new execution whose start is deferred (deferred-start.ts) and returns once its start is
 * written, with the run itself going on in the background. Throws when nothing was started: the
 * start was refused, or the run failed before its first write.
 */
export async function runUntilStarted(runtime: Runtime, execution: Execution, token: string, start: DeferredStart): Promise<void> {
  const running = runNow(runtime, execution, token, start).catch((error): DriveOutcome => {
    if (!start.written) throw error;
    logInlineFailure(execution.id, error);
    return { done: true };
  });
  runtime.waitUntil(running.catch(() => undefined));
  await Promise.race([start.settled, running]);
  // A run writes before it ends or pauses, so it cannot be over with its start unwritten; were
  // it, nothing would have started.
  if (!start.written) throw new Error("The run ended without writing its start.");
}

/** Waits up to `seconds` for a run someone else drives to end (an idempotent replay, say). */
export function watchUntilEnded(runtime: Runtime, executionId: string, seconds: number): Promise<EndedRun | undefined> {
  return watchUntil(runtime, executionId, Date.now() + Math.min(seconds, MAX_WAIT_SECONDS) * 1000);
}

async function watchUntil(runtime: Runtime, executionId: string, deadline: number): Promise<EndedRun | undefined> {
  for (;;) {
    const row = await runtime.db.select().from(executions).where(eq(executions.id, executionId)).get();
    if (!row || isFinished(row.status)) return row && { execution: row };
    if (Date.now() >= deadline) return undefined;
    await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
  }
}

export function logInlineFailure(executionId: string, error: unknown) {
  console.error(JSON.stringify({ level: "error", message: "inline run failed", execution_id: executionId, error: loggableError(error) }));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
