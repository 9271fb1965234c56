import { eq } from "drizzle-orm";
import type { Runtime } from "../core/context";
import { executions, type Execution } from "../db/schema";
import { loggableError } from "../lib/safe-log";
import { enqueueExecution } from "./queue-consumer";
import { type DriveOutcome, type EndedRun, LEASE_MS, driveExecution, driveNewExecution } from "./runner";
import type { DeferredStart } from "./start-deferral";

/** The longest `Prefer: wait` honoured (DESIGN.md §4). */
export const MAX_WAIT_SECONDS = 60;
const POLL_MS = 100;
/**
 * The backstop message of a run started inline arrives once the lease taken at insert would have
 * run out: the run has ended (the message finds it finished and does nothing), its runner died
 * (the message takes over from the checkpoints), or it is still running (the message comes back
 * when the renewed lease would run out).
 */
// A function, not a constant: runner.ts and this module import each other, and where this module
// is evaluated first (the test runner's loader) LEASE_MS is not there yet.
const backstopDelaySeconds = () => Math.ceil(LEASE_MS / 1000) + 1;

export const isFinished = (status: Execution["status"]) => status === "succeeded" || status === "failed" || status === "cancelled";

/**
 * A run started inline that has not ended after this long gets its backstop message. Most runs
 * (pure steps, a few quick tool calls) end sooner and send none: the message cost a local run
 * about a quarter of its throughput. A runner that dies earlier leaves its row leased until the
 * lease runs out, and the scheduled sweep (every minute) takes it over from its checkpoints.
 */
export const BACKSTOP_AFTER_MS = 1_000;

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
    backstop ??= enqueueExecution(runtime.bindings.WORKFLOW_RUNS, execution.id, backstopDelaySeconds()).catch((error) =>
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
