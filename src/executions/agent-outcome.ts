import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { prepareOnce, slot } from "../db/statement-cache";
import { agents, type Execution } from "../db/schema";
import { leaseStillHeld } from "./run-statements";

/**
 * The update that counts a finished execution into its agent's monitoring. It runs only while the
 * runner still holds the execution's lease (`leaseToken`) and the execution is unfinished, and it
 * goes in one batch with the final transition that releases that lease (a conditional update that
 * succeeds once), so each execution is counted exactly once. Its text is built once per outcome
 * (prepareOnce): ending a run builds no SQL.
 *
 * `success` is whether the run counts as a success: for an agent with a goal, whether the goal was
 * met (DESIGN §6.3). `null` counts the run as neither a success nor a failure: a succeeded run
 * that missed its goal, or one whose judge is still to answer (that answer counts a met goal).
 */
export function agentOutcomeUpdate(
  db: Db,
  execution: Pick<Execution, "id" | "agentId" | "startedAt" | "createdAt">,
  outcome: { success: boolean | null; error?: string | null },
  leaseToken: string,
): D1PreparedStatement {
  const now = Date.now();
  const duration = now - (execution.startedAt ?? execution.createdAt).getTime();
  const kind = outcome.success === null ? "uncounted" : outcome.success ? "succeeded" : "failed";
  return prepareOnce(db.$client, `agent-outcome:${kind}`, () => outcomeUpdate(db, outcome.success), {
    agentId: execution.agentId ?? "",
    executionId: execution.id,
    token: leaseToken,
    now,
    duration,
    lastError: outcome.error ?? null,
  });
}

function outcomeUpdate(db: Db, success: boolean | null) {
  return db
    .update(agents)
    .set({
      executionCount: sql`${agents.executionCount} + 1`,
      successCount: success === true ? sql`${agents.successCount} + 1` : agents.successCount,
      failureCount: success === false ? sql`${agents.failureCount} + 1` : agents.failureCount,
      lastError: success === false ? slot("lastError") : agents.lastError,
      lastRunAt: slot("now"),
      lastDurationMs: slot("duration"),
      totalDurationMs: sql`${agents.totalDurationMs} + ${slot("duration")}`,
      updatedAt: slot("now"),
    })
    .where(and(eq(agents.id, slot("agentId")), leaseStillHeld(slot("executionId"), slot("token"))))
    .toSQL();
}
