import { and, asc, desc, eq, inArray, isNull, lt, or } from "drizzle-orm";
import type { Env } from "../env";
import type { Db } from "../db/client";
import { executionSteps, executions, type Execution, type Workflow } from "../db/schema";
import { notFound } from "../http/errors";
import { randomToken } from "../auth/crypto";
import { enqueueExecution } from "./queue-consumer";

/** Starts a run of the workflow as it is now (its version and steps are pinned) and queues it. */
export async function startExecution(
  env: Env,
  db: Db,
  workflow: Workflow,
  run: { userId: number; credentialId: string; input: Record<string, unknown>; agentId?: string | null },
): Promise<Execution> {
  const [execution] = await db
    .insert(executions)
    .values({
      id: `exe_${randomToken(16)}`,
      workflowId: workflow.id,
      userId: run.userId,
      credentialId: run.credentialId,
      workflowVersion: workflow.version,
      steps: workflow.steps,
      settings: workflow.settings,
      variables: workflow.variables,
      input: run.input,
      agentId: run.agentId ?? null,
    })
    .returning();
  await enqueueExecution(env, execution!.id);
  return execution!;
}

export async function getOwnedExecution(db: Db, userId: number, id: string): Promise<Execution> {
  const row = await db.select().from(executions).where(and(eq(executions.id, id), eq(executions.userId, userId))).get();
  if (!row) throw notFound("Execution");
  return row;
}

export function listExecutions(db: Db, workflowId: number, limit: number, before?: { c: number; id: string }) {
  const position = before ? or(lt(executions.createdAt, new Date(before.c)), and(eq(executions.createdAt, new Date(before.c)), lt(executions.id, before.id))) : undefined;
  return db
    .select()
    .from(executions)
    .where(and(eq(executions.workflowId, workflowId), position))
    .orderBy(desc(executions.createdAt), desc(executions.id))
    .limit(limit)
    .all();
}

export async function presentExecution(db: Db, execution: Execution, withSteps: boolean) {
  const steps = withSteps
    ? await db.select().from(executionSteps).where(eq(executionSteps.executionId, execution.id)).orderBy(asc(executionSteps.position)).all()
    : undefined;
  return {
    id: execution.id,
    workflow_id: execution.workflowId,
    workflow_version: execution.workflowVersion,
    status: execution.status,
    input_data: execution.input,
    error_message: execution.errorMessage,
    failed_step_id: execution.failedStepId,
    agent_id: execution.agentId,
    created_at: execution.createdAt.toISOString(),
    started_at: execution.startedAt?.toISOString() ?? null,
    finished_at: execution.finishedAt?.toISOString() ?? null,
    ...(steps
      ? {
          steps: steps.map((s) => ({
            step_id: s.stepId,
            type: s.type,
            status: s.status,
            attempts: s.attempts,
            started_at: s.startedAt?.toISOString() ?? null,
            finished_at: s.finishedAt?.toISOString() ?? null,
            resume_at: s.resumeAt?.toISOString() ?? null,
            result: s.result ?? null,
            error_message: s.errorMessage,
          })),
        }
      : {}),
  };
}

/** How long an unfinished execution may go without a lease or a wake-up before the cron resumes it. */
const STALE_AFTER_MS = 2 * 60 * 1000;

/**
 * Cron backstop: executions whose consumer died (lease expired) or whose wake-up message was
 * lost are queued again. Duplicates are harmless: the lease admits one runner, and checkpoints
 * keep succeeded steps from running twice.
 */
export async function resumeStaleExecutions(env: Env, db: Db, now = Date.now()): Promise<number> {
  const stale = await db
    .select({ id: executions.id })
    .from(executions)
    .where(
      and(
        inArray(executions.status, ["queued", "running"]),
        or(lt(executions.leaseUntil, new Date(now - STALE_AFTER_MS)), and(isNull(executions.leaseUntil), lt(executions.updatedAt, new Date(now - STALE_AFTER_MS)))),
      ),
    )
    .limit(100)
    .all();
  for (const { id } of stale) await enqueueExecution(env, id);
  return stale.length;
}
