import { and, eq, inArray, sql } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { executionSteps, executions, type Execution } from "../db/schema";
import { HubError } from "../core/errors";
import { randomToken } from "../lib/crypto";
import { getOwnedExecution, quotaExceeded, removeIfOverQuota } from "./executions";
import { resumeNow } from "./run-now";

/** Step states a retry takes over as they are: done, never run again. */
const REUSED = ["succeeded", "skipped"] as const;

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
  const id = `exe_${randomToken(16)}`;
  const [[retry], , refused] = await ctx.db.batch([
    ctx.db
      .insert(executions)
      .values({
        id,
        workflowId: old.workflowId,
        userId: ctx.user.id,
        credentialId: ctx.credential.id,
        workflowVersion: old.workflowVersion,
        steps: old.steps,
        settings: old.settings,
        variables: old.variables,
        input: old.input,
        agentId: old.agentId,
        retryOf: old.id,
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
          tokensUsed: executionSteps.tokensUsed,
        })
        .from(executionSteps)
        .where(and(eq(executionSteps.executionId, old.id), inArray(executionSteps.status, [...REUSED]))),
    ),
    removeIfOverQuota(ctx, id),
  ]);
  if (refused.length) throw quotaExceeded(ctx.config.quotas.runningExecutionsPerUser);
  resumeNow(ctx, retry!.id);
  return retry!;
}
