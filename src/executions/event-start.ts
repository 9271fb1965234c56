import type { ServiceContext } from "../core/context";
import type { Execution, Workflow } from "../db/schema";
import type { WorkflowSettings } from "../workflows/steps";
import { DeferredStart, StartOverQuota, StartRefused, StartReplayed } from "./deferred-start";
import { isControlled } from "./flow-control";
import { newLeaseToken } from "./lease";
import { runUntilStarted } from "./run-now";
import { type IdempotencyKey, keyedStartStatements } from "./start-keys";
import { type RunRequest, type StartAlongside, type StartGuard, executionFrom, newRunValues, startStatements } from "./start";

export interface EventStartOptions {
  idempotency?: IdempotencyKey;
  also?: StartAlongside;
  /** What else must still hold when the start is written (the agent as the caller read it). */
  guard?: StartGuard;
}

/**
 * Starts a run for a trigger's event from a copy of its workflow the caller holds (read earlier,
 * in this isolate), with the start written together with the run's first write rather than
 * before it: a run of pure steps that ends at once is one D1 write in all, the event's
 * idempotency key, its `also` statements and the start included. Returns once the start is
 * written (the caller may acknowledge the event then); the run goes on in the background.
 *
 * The insert copies the workflow only if it is still the version of the copy, may run, and
 * `guard` holds, so a stale copy never runs. When the start is refused (a stale copy, a key
 * already used, the quota full) the answer is `undefined`; when its write fails, the error is
 * thrown. Either way no run exists and no step has run but pure ones: the caller starts the usual
 * way, which reads afresh and says why. Every step that is not pure runs only after the start is
 * written.
 */
export async function startEventRun(ctx: ServiceContext, copy: Workflow, run: RunRequest, options: EventStartOptions = {}): Promise<Execution | undefined> {
  // A workflow that limits its concurrent runs queues them: the usual start hands them over.
  // So does one whose starts are debounced or rate-limited (flow-control.ts decides those).
  const settings = copy.settings as WorkflowSettings;
  if (copy.status === "paused" || copy.status === "archived" || settings.concurrency || isControlled(settings, run)) return undefined;
  const now = Date.now();
  const token = newLeaseToken();
  const values = { ...newRunValues(ctx, run, now, token), createdAt: new Date(now), updatedAt: new Date(now) };
  const after = options.also?.after?.(values.id) ?? [];
  const plain = startStatements(ctx, copy.id, values, { copyOf: copy, guard: options.guard, idOnly: true });
  const statements = options.idempotency ? keyedStartStatements(ctx, plain, options.idempotency, values.id, now) : plain;
  const read = (results: D1Result[]) => readStart(results, Boolean(options.idempotency));
  const start = new DeferredStart([...statements, ...after], read);
  const execution = executionFrom(copy, values);
  try {
    await runUntilStarted(ctx, execution, token, start);
    return execution;
  } catch (error) {
    if (error instanceof StartRefused || error instanceof StartReplayed || error instanceof StartOverQuota) return undefined;
    throw error;
  }
}

/** Why the start's statements started nothing, if they did not (see keyedStartStatements for the order). */
function readStart(results: D1Result[], keyed: boolean): Error | undefined {
  const [inserted, claimed, refused] = keyed ? [results[1], results[2], results[4]] : [results[0], undefined, results[1]];
  if (!inserted || inserted.results.length === 0) return new StartRefused();
  if (claimed && claimed.results.length === 0) return new StartReplayed();
  if (refused && refused.results.length > 0) return new StartOverQuota();
  return undefined;
}
