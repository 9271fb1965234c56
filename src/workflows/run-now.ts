import { eq } from "drizzle-orm";
import type { Runtime } from "../core/context";
import { executions, type Execution } from "../db/schema";
import { enqueueExecution } from "./queue-consumer";
import { driveExecution } from "./runner";

/** The longest `Prefer: wait` honoured (DESIGN.md §4). */
export const MAX_WAIT_SECONDS = 60;
const POLL_MS = 100;

const isFinished = (status: Execution["status"]) => status === "succeeded" || status === "failed" || status === "cancelled";

/**
 * Runs a just-started execution in the invocation that accepted it, instead of waiting for the
 * queue to deliver its message. The message stays the backstop: if this invocation dies, the
 * lease runs out and the message (or the sweep) resumes the run from its checkpoints; if the run
 * finishes here, the message finds it finished and does nothing. A pause (a delay, a retry) goes
 * back to the queue as a delayed message, as it would from the consumer.
 */
export async function runNow(runtime: Runtime, executionId: string): Promise<void> {
  const outcome = await driveExecution(runtime, executionId);
  if (!outcome.done) await enqueueExecution(runtime.bindings.WORKFLOW_RUNS, executionId, outcome.resumeInSeconds);
}

/**
 * Runs the execution now and waits up to `seconds` for it to end, whoever drives it: returns the
 * finished execution, or undefined when it is still going (it carries on in the background).
 */
export async function runAndWait(runtime: Runtime, executionId: string, seconds: number): Promise<Execution | undefined> {
  const deadline = Date.now() + Math.min(seconds, MAX_WAIT_SECONDS) * 1000;
  let running: Promise<void> | undefined = runNow(runtime, executionId);
  running.catch(() => undefined);
  for (;;) {
    const row = await runtime.db.select().from(executions).where(eq(executions.id, executionId)).get();
    if (!row || isFinished(row.status)) return row;
    if (Date.now() >= deadline) {
      // The drive in progress keeps going after the answer has gone.
      if (running) runtime.waitUntil(running);
      return undefined;
    }
    if (running) {
      // Wait for this drive (or the deadline); a drive that paused or lost the lease to another runner ends early.
      const ended = await Promise.race([running.then(() => true), sleep(deadline - Date.now()).then(() => false)]);
      if (ended) running = undefined;
    } else {
      await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
