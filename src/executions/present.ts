import { journalOf } from "./steps/agent-journal";
import { z } from "@hono/zod-openapi";
import { and, asc, desc, eq, lt, or } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { notFound } from "../core/errors";
import type { Db } from "../db/client";
import { executionSteps, executions, type Execution, type ExecutionStep } from "../db/schema";
import { decodeCursor } from "../http/pagination";
import { getOwnedWorkflow } from "../workflows/service";

export async function getOwnedExecution(ctx: ServiceContext, id: string): Promise<Execution> {
  const row = await ctx.db
    .select()
    .from(executions)
    .where(and(eq(executions.id, id), eq(executions.userId, ctx.workspace.id)))
    .get();
  if (!row) throw notFound("Execution");
  return row;
}

/** Executions of one of the caller's workflows, newest first; the cursor is the last row's (created_at, id). */
export async function listWorkflowExecutions(ctx: ServiceContext, workflowId: number, limit: number, cursor: string | undefined) {
  // Ownership first: another user's workflow is 404 whatever the cursor.
  const workflow = await getOwnedWorkflow(ctx, workflowId);
  const before = decodeCursor(cursor, z.object({ c: z.number(), id: z.string() }));
  const position = before
    ? or(lt(executions.createdAt, new Date(before.c)), and(eq(executions.createdAt, new Date(before.c)), lt(executions.id, before.id)))
    : undefined;
  return ctx.db
    .select()
    .from(executions)
    .where(and(eq(executions.workflowId, workflow.id), position))
    .orderBy(desc(executions.createdAt), desc(executions.id))
    .limit(limit)
    .all();
}

/** The runs this one started (`workflow` steps' children, its error workflow's run), oldest first. */
export async function childExecutions(db: Db, executionId: string) {
  const rows = await db
    .select({
      id: executions.id,
      workflowId: executions.workflowId,
      status: executions.status,
      tokensUsed: executions.tokensUsed,
      createdAt: executions.createdAt,
      finishedAt: executions.finishedAt,
    })
    .from(executions)
    .where(eq(executions.parentExecutionId, executionId))
    .orderBy(asc(executions.createdAt))
    .limit(100)
    .all();
  return rows.map((row) => ({
    id: row.id,
    workflow_id: row.workflowId,
    status: row.status,
    tokens_used: row.tokensUsed,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
  }));
}

/** With `withSteps`, the steps are read unless the caller already holds them (`known`, in order). */
export async function presentExecution(db: Db, execution: Execution, withSteps: boolean, known?: ExecutionStep[]) {
  const steps = withSteps
    ? (known ?? (await db.select().from(executionSteps).where(eq(executionSteps.executionId, execution.id)).orderBy(asc(executionSteps.position)).all()))
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
    retry_of: execution.retryOf,
    replay_of: execution.replayOf,
    parent_execution_id: execution.parentExecutionId,
    trigger: execution.trigger,
    tokens_used: execution.tokensUsed,
    created_at: execution.createdAt.toISOString(),
    started_at: execution.startedAt?.toISOString() ?? null,
    finished_at: execution.finishedAt?.toISOString() ?? null,
    // DESIGN §6.3 Goals: null for runs of no agent or of an agent without a goal, and until judged.
    verdict: execution.verdict ?? null,
    verdict_reason: execution.verdictReason ?? null,
    mode: execution.mode,
    errors_handled: execution.errorsHandled,
    ...(steps && execution.status === "waiting" ? waitingFor(steps) : {}),
    ...(steps
      ? {
          steps: steps.map((s) => ({
            step_id: s.stepId,
            // Steps inside a for_each run once per item: `send#3` is item 3's.
            item: s.stepKey.includes("#") ? Number(s.stepKey.slice(s.stepKey.lastIndexOf("#") + 1)) : null,
            type: s.type,
            status: s.status,
            attempts: s.attempts,
            duration_ms: s.startedAt && s.finishedAt ? s.finishedAt.getTime() - s.startedAt.getTime() : null,
            tokens_used: s.tokensUsed,
            started_at: s.startedAt?.toISOString() ?? null,
            finished_at: s.finishedAt?.toISOString() ?? null,
            resume_at: s.resumeAt?.toISOString() ?? null,
            result: s.result ?? null,
            error_message: s.errorMessage,
            // Only a code step has console lines; other steps' records stay as they were.
            ...(s.type === "code" ? { logs: s.logs ?? [] } : {}),
            // What an llm step's requests spent over its attempts (DESIGN §6.2 Ledger).
            ...(s.type === "llm" || s.type === "agent" ? { usage: s.usage ?? null } : {}),
            ...(s.errorCode ? { error_code: s.errorCode } : {}),
          })),
        }
      : {}),
  };
}

/** What a parked run waits for, when it is a person's decision on an `agent` step's call (DESIGN §6.2). */
function waitingFor(steps: ExecutionStep[]): { waiting_for?: { approval_id: string } } {
  for (const step of steps) {
    const approval = step.type === "agent" && step.status === "waiting" ? journalOf(step.result)?.waiting?.[0] : undefined;
    if (approval) return { waiting_for: { approval_id: approval } };
  }
  return {};
}
