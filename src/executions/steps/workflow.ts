import { HubError } from "../../core/errors";
import { MAX_WORKFLOW_DEPTH, type WorkflowSettings } from "../../workflows/steps";
import { childResult, childRunId, findChildRun, startChildRun, wakeParent } from "../child-runs";
import { isFinished, newLeaseToken } from "../lease";
import { handToQueue } from "../queue";
import { bounded } from "../scope";
import type { StepHandler } from "./types";

/** How long a run parked for its child waits before looking again, should the child's wake-up be lost. */
const CHILD_BACKSTOP_MS = 3600_000;

/**
 * `workflow` runs another of the user's workflows as a child run and takes its result. The child
 * runs here and now (this run's lease renewed meanwhile); a child that parks (a wait, a delay)
 * parks this run too, until the child's end wakes it. The child's id comes from this step, so a
 * resumed run finds the child it started rather than starting another.
 */
export const runChildWorkflow: StepHandler<"workflow"> = async (run, step, scope, done) => {
  const childId = await childRunId(run.execution.id, scope.key(step));
  let child = await findChildRun(run.ctx, childId);
  if (!child) {
    if (run.execution.depth >= MAX_WORKFLOW_DEPTH) return run.failStep(step, scope, 1, `Workflow steps nest ${MAX_WORKFLOW_DEPTH} deep at most.`);
    await run.stopIfRevoked(step, scope);
    const input = run.evaluate(step, () => run.substitute(step.input, scope.context) as Record<string, unknown>);
    await run.checkpoint(step, scope, { status: "running", attempts: 1, result: { execution_id: childId }, startedAt: done?.startedAt ?? new Date() });
    const token = newLeaseToken();
    try {
      child = await startChildRun(run.ctx, run.execution, childId, step.workflow_id, input, token);
    } catch (error) {
      if (error instanceof HubError) return run.failStep(step, scope, 1, `The workflow ${step.workflow_id} could not start: ${error.message}`);
      throw error;
    }
    const started = child;
    if ((started.settings as WorkflowSettings).concurrency) {
      // Its workflow limits how many of its runs go at once: it takes its turn in the queue.
      child = await handToQueue(run.ctx, started, token);
    } else {
      await run.withHeartbeat(() => run.driveInline(started, token));
      child = (await findChildRun(run.ctx, childId)) ?? child;
    }
  }
  if (child.status === "succeeded") {
    const result = bounded(await childResult(run.ctx, child));
    await run.checkpoint(step, scope, { status: "succeeded", result, attempts: 1, tokensUsed: child.tokensUsed });
    run.apply(step, scope, result);
    return;
  }
  if (child.status === "failed" || child.status === "cancelled") {
    const reason = child.errorMessage ?? `It was ${child.status}.`;
    return run.failStep(step, scope, 1, `The child run ${child.id} ${child.status}: ${reason}`, child.tokensUsed);
  }
  // The child goes on without us: park until its end wakes this run (the backstop only guards a lost wake-up).
  const childStillRunning = child.id;
  await run.pause(Date.now() + CHILD_BACKSTOP_MS, "waiting", async () => {
    // It may have ended between the look above and the park: then nobody else would wake us.
    const now = await findChildRun(run.ctx, childStillRunning);
    if (now && isFinished(now.status)) await wakeParent(run.ctx, run.execution.id);
  });
};
