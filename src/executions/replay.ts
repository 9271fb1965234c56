import { and, desc, eq, gte, notExists } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { ServiceContext } from "../core/context";
import { executions, type Execution } from "../db/schema";
import { HubError } from "../core/errors";
import { startExecution } from "./start-and-run";
import { getOwnedWorkflow } from "../workflows/service";

export const MAX_REPLAY = 100;

export interface ReplayFilter {
  status: "failed" | "cancelled" | "succeeded";
  /** Only runs created at or after this time. */
  since?: Date;
  limit: number;
}

/**
 * Bulk replay: runs again, from the start and on the workflow as it is now, the input of each of
 * the workflow's runs that match (newest first), typically the failures after a fix. Each new run
 * records `replay_of`; a run already replayed is skipped, so asking twice replays nothing twice.
 * Every start counts against the quota of unfinished runs: the first refused stops the replay
 * (`quotaReached`), keeping those already started; none started at all is the quota's 409.
 * Test runs are never replayed.
 */
export async function replayExecutions(
  ctx: ServiceContext,
  workflowId: number,
  filter: ReplayFilter,
): Promise<{ started: Execution[]; quotaReached: boolean }> {
  const workflow = await getOwnedWorkflow(ctx, workflowId);
  const replays = alias(executions, "replays");
  const sources = await ctx.db
    .select({ id: executions.id, input: executions.input })
    .from(executions)
    .where(
      and(
        eq(executions.workflowId, workflow.id),
        eq(executions.status, filter.status),
        // A test run's input was a try, not work to do again (DESIGN §6.5).
        eq(executions.mode, "production"),
        filter.since ? gte(executions.createdAt, filter.since) : undefined,
        notExists(ctx.db.select({ id: replays.id }).from(replays).where(eq(replays.replayOf, executions.id))),
      ),
    )
    .orderBy(desc(executions.createdAt), desc(executions.id))
    .limit(Math.min(filter.limit, MAX_REPLAY))
    .all();
  const started: Execution[] = [];
  for (const source of sources) {
    try {
      started.push(await startExecution(ctx, workflow, { input: source.input, replayOf: source.id }));
    } catch (error) {
      if (error instanceof HubError && error.code === "quota_exceeded" && started.length > 0) return { started, quotaReached: true };
      // Replayed meanwhile by a request at the same moment (a run is replayed once: a unique index).
      if (await alreadyReplayed(ctx, source.id)) continue;
      throw error;
    }
  }
  return { started, quotaReached: false };
}

async function alreadyReplayed(ctx: ServiceContext, id: string): Promise<boolean> {
  return Boolean(await ctx.db.select({ id: executions.id }).from(executions).where(eq(executions.replayOf, id)).get());
}
