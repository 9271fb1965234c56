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
 */
export function agentOutcomeUpdate(
  db: Db,
  execution: Pick<Execution, "id" | "agentId" | "startedAt" | "createdAt">,
  outcome: { success: boolean; error?: string | null },
  leaseToken: string,
): D1PreparedStatement {
  const now = Date.now();
  const duration = now - (execution.startedAt ?? execution.createdAt).getTime();
  return prepareOnce(db.$client, `agent-outcome:${outcome.success ? "succeeded" : "failed"}`, () => outcomeUpdate(db, outcome.success), {
    agentId: execution.agentId ?? "",
    executionId: execution.id,
    token: leaseToken,
    now,
    duration,
    lastError: outcome.error ?? null,
  });
}

function outcomeUpdate(db: Db, success: boolean) {
  return db
    .update(agents)
    .set({
      executionCount: sql`${agents.executionCount} + 1`,
      successCount: success ? sql`${agents.successCount} + 1` : agents.successCount,
      failureCount: success ? agents.failureCount : sql`${agents.failureCount} + 1`,
      lastError: success ? agents.lastError : slot("lastError"),
      lastRunAt: slot("now"),
      lastDurationMs: slot("duration"),
      totalDurationMs: sql`${agents.totalDurationMs} + ${slot("duration")}`,
      updatedAt: slot("now"),
    })
    .where(and(eq(agents.id, slot("agentId")), leaseStillHeld(slot("executionId"), slot("token"))))
    .toSQL();
}
