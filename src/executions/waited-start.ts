import type { ServiceContext } from "../core/context";
import { forgetCachedWorkflows, ownWorkflowCopy } from "../workflows/cached";
import { type RunRequest, executionFrom, newRunValues, quotaExceeded, startStatements } from "./start";
import type { StartedRun } from "./start-and-run";
import { runAndWait } from "./run-now";
import { newLeaseToken } from "./lease";
import type { WorkflowSettings } from "../workflows/steps";
import { DeferredStart, StartOverQuota, StartRefused } from "./deferred-start";

/**
 * Runs a workflow for a caller who waits for its end (`Prefer: wait`), with its start written
 * together with the run's first write rather than before it: a run of pure steps (`set`,
 * `condition`) that ends at once costs one D1 write instead of two. The run is built from this
 * isolate's copy of the workflow; the insert copies the workflow only if it is still that
 * version, may run, and is the caller's, so a stale copy is never run: the start is refused, the
 * copy forgotten, and `undefined` tells the caller to start the run the usual way.
 *
 * Nothing is acknowledged before the row exists: the answer comes after the run's end, or, when
 * the wait runs out first, after its start is written. A crash before the first write leaves no
 * run behind and the caller no answer. Every step that is not pure (a side effect, a wait) runs
 * only after that write, so no side effect happens for a run that does not exist.
 */
export async function runWithDeferredStart(ctx: ServiceContext, workflowId: number, run: RunRequest, waitSeconds: number): Promise<StartedRun | undefined> {
  const copy = await ownWorkflowCopy(ctx, workflowId);
  // Not there, or not runnable now: the usual start says why. A workflow with a concurrency limit
  // queues its runs, so it has nothing to gain here.
  if (!copy || copy.status === "paused" || copy.status === "archived" || (copy.settings as WorkflowSettings).concurrency) return undefined;

  const now = Date.now();
  const token = newLeaseToken();
  const values = { ...newRunValues(ctx, run, now, token), createdAt: new Date(now), updatedAt: new Date(now) };
  const execution = executionFrom(copy, values);
  const start = new DeferredStart(startStatements(ctx, workflowId, values, { copyOf: copy, idOnly: true }));
  try {
    return { execution, finished: await runAndWait(ctx, execution, token, waitSeconds, start) };
  } catch (error) {
    if (error instanceof StartRefused) {
      forgetCachedWorkflows(ctx.workspace.id);
      return undefined;
    }
    if (error instanceof StartOverQuota) throw quotaExceeded(ctx.config.quotas.runningExecutionsPerUser);
    throw error;
  }
}
