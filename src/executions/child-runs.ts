import { and, asc, eq } from "drizzle-orm";
import type { Runtime, ServiceContext } from "../core/context";
import { executionSteps, executions, type Execution } from "../db/schema";
import { base64url, sha256 } from "../lib/crypto";
import { insertExecution } from "./start";
import { enqueueExecution } from "./queue";

/**
 * The id of the child run a `workflow` step starts: derived from the parent and the step's key,
 * so a parent resumed after a crash finds the child it started instead of starting another.
 */
export async function childRunId(parentId: string, stepKey: string): Promise<string> {
  return `exe_${base64url(await sha256(`${parentId}:${stepKey}`)).slice(0, 22)}`;
}

/** The child run, if it was started. */
export function findChildRun(runtime: Runtime, id: string): Promise<Execution | undefined> {
  return runtime.db.select().from(executions).where(eq(executions.id, id)).get();
}

/**
 * Starts the child run of one of the same user's workflows (ownership, status and quota as any
 * start, and room in its tree: MAX_RUN_DESCENDANTS), born leased to `leaseToken` so the parent
 * can run it at once.
 */
export async function startChildRun(
  ctx: ServiceContext,
  parent: Execution,
  childId: string,
  workflowId: number,
  input: Record<string, unknown>,
  leaseToken: string,
): Promise<Execution> {
  const { execution } = await insertExecution(
    ctx,
    workflowId,
    {
      input,
      child: { id: childId, parentExecutionId: parent.id, depth: parent.depth + 1, rootExecutionId: parent.rootExecutionId ?? parent.id },
      // A test run's children are test runs too (no notifications, no on_failure runs); its pins are its own.
      ...(parent.mode === "test" ? { mode: "test" as const } : {}),
    },
    leaseToken,
  );
  return execution;
}

/** What a `workflow` step answers with: the child run's id and the results of its steps, by id. */
export async function childResult(runtime: Runtime, child: Execution) {
  const rows = await runtime.db
    .select({ stepKey: executionSteps.stepKey, stepId: executionSteps.stepId, result: executionSteps.result })
    .from(executionSteps)
    .where(and(eq(executionSteps.executionId, child.id), eq(executionSteps.status, "succeeded")))
    .orderBy(asc(executionSteps.position))
    .all();
  // A loop's items are inside its own result; the per-item records would only repeat them.
  const steps = Object.fromEntries(rows.filter((row) => !row.stepKey.includes("#")).map((row) => [row.stepId, row.result]));
  return { execution_id: child.id, steps };
}

/**
 * A child run ended: wake its parent if the parent is parked waiting for it. Conditional, so it
 * is harmless when the parent is not waiting (it ran the child inline and carries on by itself).
 */
export async function wakeParent(runtime: Runtime, parentId: string): Promise<void> {
  const woken = await runtime.db
    .update(executions)
    .set({ status: "queued", leaseUntil: null, updatedAt: new Date() })
    .where(and(eq(executions.id, parentId), eq(executions.status, "waiting")))
    .returning({ id: executions.id });
  if (woken.length) await enqueueExecution(runtime.bindings.WORKFLOW_RUNS, parentId);
}
