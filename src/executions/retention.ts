import { type SQL, and, eq, inArray, isNotNull, lt, sql } from "drizzle-orm";
import type { Runtime, ServiceContext } from "../core/context";
import { HubError, notFound } from "../core/errors";
import type { Db } from "../db/client";
import { executionSteps, executions, traceSpans, workflows } from "../db/schema";

/**
 * Retention (DESIGN §6.5): a finished run, with its step records, spans and notifications, is
 * deleted once older than its workflow's `settings.retention_days` or, without that, the
 * deployment's EXECUTION_RETENTION_DAYS; or at once by DELETE /v1/executions/{id}.
 *
 * Never deleted, whatever its age: an unfinished run; a finished child whose parent has not
 * finished (the parent reads the child's result when it resumes); a finished run with a run it
 * set off still going (an on_failure run counts its tree on it); a run whose notification is still
 * being delivered. A finished parent loses nothing when its finished child goes: it only lists it.
 * The ledger (model_usage), the agents' events log and memories name runs but outlive them.
 */

/** Runs looked at per sweep, and step or span rows deleted per sweep: one cron tick stays small. */
export const RETENTION_RUNS_PER_SWEEP = 100;
export const RETENTION_ROWS_PER_SWEEP = 5000;

const FINISHED = ["succeeded", "failed", "cancelled"] as const;
const DAY_MS = 86_400_000;
const retentionDays = sql`json_extract(${workflows.settings}, '$.retention_days')`;

/** Whether the run (the outer `executions` row) may be deleted now, age aside. */
const mayGo: SQL = and(
  inArray(executions.status, [...FINISHED]),
  sql`not exists (select 1 from executions as parent where parent.id = ${executions.parentExecutionId} and parent.status in ('queued', 'running', 'waiting'))`,
  // Named: with statistics showing most runs have no parent, the planner would rather scan every run.
  sql`not exists (select 1 from executions as child indexed by executions_parent_idx where child.parent_execution_id = ${executions.id} and child.status in ('queued', 'running', 'waiting'))`,
  sql`not exists (select 1 from execution_notifications as sending where sending.execution_id = ${executions.id} and sending.status in ('pending', 'sending'))`,
)!;

/**
 * Deletes up to RETENTION_RUNS_PER_SWEEP runs past their time, oldest rows first within each
 * pass. A run with more step rows than this sweep may delete keeps the rest, and itself, for the
 * next sweep. Answers how many runs went.
 */
export async function sweepExpiredRuns({ db, config }: Runtime, now = Date.now()): Promise<number> {
  // Workflows with their own retention (few; an index lists them), then every other workflow's runs.
  const own = await db
    .select({ id: executions.id })
    .from(workflows)
    .innerJoin(
      executions,
      and(eq(executions.workflowId, workflows.id), isNotNull(executions.finishedAt), sql`${executions.finishedAt} < ${now} - ${retentionDays} * ${DAY_MS}`),
    )
    .where(and(sql`${retentionDays} is not null`, mayGo))
    .limit(RETENTION_RUNS_PER_SWEEP)
    .all();
  const room = RETENTION_RUNS_PER_SWEEP - own.length;
  const byDefault =
    room > 0
      ? await db
          .select({ id: executions.id })
          .from(executions)
          .where(
            and(
              isNotNull(executions.finishedAt),
              lt(executions.finishedAt, new Date(now - config.executionRetentionDays * DAY_MS)),
              sql`${executions.workflowId} not in (select ${workflows.id} from ${workflows} where ${retentionDays} is not null)`,
              mayGo,
            ),
          )
          .limit(room)
          .all()
      : [];
  const ids = [...own, ...byDefault].map((row) => row.id);
  if (ids.length === 0) return 0;
  // The ids as one JSON parameter: D1 binds at most 100 parameters per statement.
  const listed = sql`${executions.id} in (select value from json_each(${JSON.stringify(ids)}))`;
  const [, , deleted] = await deleteRuns(db, listed, RETENTION_ROWS_PER_SWEEP);
  return deleted.length;
}

/**
 * DELETE /v1/executions/{id}: the caller's finished run goes with everything kept for it. 404 for
 * another user's run, 409 for one that may not go yet (see above).
 */
export async function deleteRun(ctx: ServiceContext, id: string): Promise<void> {
  const [, , deleted] = await deleteRuns(ctx.db, and(eq(executions.id, id), eq(executions.userId, ctx.workspace.id))!);
  if (deleted.length > 0) return;
  const run = await ctx.db
    .select({ status: executions.status })
    .from(executions)
    .where(and(eq(executions.id, id), eq(executions.userId, ctx.workspace.id)))
    .get();
  if (!run) throw notFound("Execution");
  throw new HubError(
    "conflict",
    FINISHED.includes(run.status as (typeof FINISHED)[number])
      ? "The execution is still needed: its parent run or a run it started has not finished, or its notification is being delivered."
      : `The execution is ${run.status}; cancel it or wait for it to finish before deleting it.`,
  );
}

/**
 * One batch (one transaction): the step records and spans of the runs `which` selects that may go
 * (at most `rowLimit` of each), then those runs with none left; their idempotency keys,
 * notifications and search entries go with them (foreign keys, triggers).
 */
function deleteRuns(db: Db, which: SQL, rowLimit?: number) {
  const going = db.select({ id: executions.id }).from(executions).where(and(which, mayGo));
  const bounded = rowLimit === undefined ? sql`` : sql` limit ${rowLimit}`;
  return db.batch([
    db.delete(executionSteps).where(sql`rowid in (select rowid from ${executionSteps} where ${executionSteps.executionId} in ${going}${bounded})`),
    db.delete(traceSpans).where(sql`rowid in (select rowid from ${traceSpans} where ${traceSpans.executionId} in ${going}${bounded})`),
    db
      .delete(executions)
      .where(
        and(
          which,
          mayGo,
          sql`not exists (select 1 from ${executionSteps} where ${executionSteps.executionId} = ${executions.id})`,
          sql`not exists (select 1 from ${traceSpans} where ${traceSpans.executionId} = ${executions.id})`,
        ),
      )
      .returning({ id: executions.id }),
  ]);
}
