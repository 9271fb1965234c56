import { and, eq, inArray, ne, or, sql } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { executionSteps, executions, type Execution } from "../db/schema";
import { HubError } from "../core/errors";
import { randomToken } from "../lib/crypto";
import { assertRunnable, quotaExceeded, removeIfOverQuota } from "./start";
import { getOwnedExecution } from "./present";
import { resumeNow } from "./run-now";
import { getOwnedWorkflow } from "../workflows/service";
import type { Step } from "../workflows/steps";
import { failureHandlingStepIds } from "./on-error";

/** Step states a retry takes over as they are: done, never run again. */
const REUSED = ["succeeded", "skipped"] as const;

/**
 * The old run's failures its steps' `on_error` took over: the retry takes them over too (the
 * step is not run again; its handler goes on from its own records) and counts them in its
 * `errors_handled`. Not the run's own failed step. The ids go as one JSON parameter (D1 binds 100 at most).
 */
function handledFailure(old: Execution) {
  const ids = [...failureHandlingStepIds(old.steps as Step[])];
  return and(
    eq(executionSteps.status, "failed"),
    sql`${executionSteps.stepId} in (select value from json_each(${JSON.stringify(ids)}))`,
    old.failedStepId === null ? undefined : ne(executionSteps.stepId, old.failedStepId),
  );
}

/**
 * Retries a failed (or cancelled) run: a new execution (`retry_of` the old one) of the same
 * version with the same input, which takes over the old run's succeeded steps as checkpoints, so
 * it starts at the step that failed and repeats no side effect that had succeeded. It acts with
 * the caller's credential, and runs at once (a queue message is its backstop).
 */
export async function retryExecution(ctx: ServiceContext, executionId: string): Promise<Execution> {
  const old = await getOwnedExecution(ctx, executionId);
  if (old.status !== "failed" && old.status !== "cancelled") {
    throw new HubError("conflict", `Only a failed or cancelled execution can be retried; this one is ${old.status}.`);
  }
  // The workflow's rules hold for retries as for any start: a paused or archived one does not run.
  assertRunnable(await getOwnedWorkflow(ctx, old.workflowId));
  const id = `exe_${randomToken(16)}`;
  let written: Awaited<ReturnType<typeof insertRetry>>;
  try {
    written = await insertRetry(ctx, old, id);
  } catch (error) {
    // A run is retried once (a unique index): a second retry, even at the same moment, is refused.
    const earlier = await ctx.db.select({ id: executions.id }).from(executions).where(eq(executions.retryOf, old.id)).get();
    if (earlier) throw new HubError("conflict", `This execution was already retried as ${earlier.id}; retry that one if it failed.`);
    throw error;
  }
  const [[retry], , , refused] = written;
  if (refused.length) throw quotaExceeded(ctx.config.quotas.runningExecutionsPerUser);
  resumeNow(ctx, retry!.id);
  return retry!;
}

/**
 * The retry's row, the old run's finished steps as its checkpoints (their results count as stored
 * by it: MAX_RUN_STORED_BYTES), and the quota check, in one batch. A retry is a new request: it
 * starts a tree of its own (MAX_RUN_DESCENDANTS).
 */
function insertRetry(ctx: ServiceContext, old: Execution, id: string) {
  return ctx.db.batch([
    ctx.db
      .insert(executions)
      .values({
        id,
        workflowId: old.workflowId,
        userId: ctx.workspace.id,
        credentialId: ctx.credential.id,
        workflowVersion: old.workflowVersion,
        steps: old.steps,
        settings: old.settings,
        variables: old.variables,
        input: old.input,
        agentId: old.agentId,
        // A retried test run is a test run still, with the same pinned steps.
        mode: old.mode,
        pinned: old.pinned,
        retryOf: old.id,
        depth: old.depth,
        trigger: "retry",
      })
      .returning(),
    // The old run's finished steps become the new run's checkpoints (every column, in table order).
    ctx.db.insert(executionSteps).select(
      ctx.db
        .select({
          executionId: sql`${id}`.as("execution_id"),
          stepKey: executionSteps.stepKey,
          stepId: executionSteps.stepId,
          type: executionSteps.type,
          status: executionSteps.status,
          attempts: executionSteps.attempts,
          result: executionSteps.result,
          errorMessage: executionSteps.errorMessage,
          resumeAt: executionSteps.resumeAt,
          position: executionSteps.position,
          startedAt: executionSteps.startedAt,
          finishedAt: executionSteps.finishedAt,
          // Reused, not spent again: this run's tokens are its own.
          tokensUsed: sql`0`.as("tokens_used"),
          logs: executionSteps.logs,
          usage: sql`null`.as("usage"),
          errorCode: executionSteps.errorCode,
        })
        .from(executionSteps)
        .where(and(eq(executionSteps.executionId, old.id), or(inArray(executionSteps.status, [...REUSED]), handledFailure(old)))),
    ),
    ctx.db
      .update(executions)
      .set({
        storedBytes: sql`(select coalesce(sum(coalesce(length(cast(${executionSteps.result} as blob)), 0) + coalesce(length(cast(${executionSteps.logs} as blob)), 0)), 0) from ${executionSteps} where ${executionSteps.executionId} = ${id})`,
      })
      .where(eq(executions.id, id)),
    removeIfOverQuota(ctx, id),
  ]);
}
