import { and, eq, inArray, sql } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { executions, type Execution } from "../db/schema";
import { wakeParent } from "./child-runs";
import { getOwnedExecution } from "./present";

/**
 * Cancels an unfinished execution (queued, running, waiting on a delay, a retry or an event). A runner
 * in the middle of a step loses its lease at once: its heartbeat aborts the step's call and
 * nothing after it runs. A finished execution answers 409.
 */
export async function cancelExecution(ctx: ServiceContext, id: string): Promise<Execution> {
  const now = new Date();
  const stop = { status: "cancelled" as const, finishedAt: now, leaseToken: null, leaseUntil: null, updatedAt: now };
  const unfinished = inArray(executions.status, ["queued", "running", "waiting"]);
  const [cancelled] = await ctx.db
    .update(executions)
    .set({ ...stop, errorMessage: "Cancelled on request." })
    .where(and(eq(executions.id, id), eq(executions.userId, ctx.workspace.id), unfinished))
    .returning();
  if (cancelled) {
    // Every unfinished run below it goes with it, found by the statement itself: one level may hold
    // more runs than a statement can bind (D1: 100 values), and one statement cannot stop half way.
    const below = sql`${executions.id} in (
      with recursive below(id) as (
        select id from executions where parent_execution_id = ${cancelled.id} and status in ('queued', 'running', 'waiting')
        union
        select child.id from executions child join below on child.parent_execution_id = below.id where child.status in ('queued', 'running', 'waiting')
      )
      select id from below)`;
    await ctx.db
      .update(executions)
      .set({ ...stop, errorMessage: "Cancelled with the run that started it." })
      .where(and(below, unfinished));
    // A parent waiting for this run hears that it ended (its step fails with the reason).
    if (cancelled.parentExecutionId) await wakeParent(ctx, cancelled.parentExecutionId);
    return cancelled;
  }
  const existing = await getOwnedExecution(ctx, id);
  throw new HubError("conflict", `The execution has already ${existing.status === "cancelled" ? "been cancelled" : existing.status}.`);
}
