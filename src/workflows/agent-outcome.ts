import { eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { agents, type Execution } from "../db/schema";

/**
 * Counts a finished execution into its agent's monitoring. Callers invoke it only from the
 * execution's own final transition (a conditional update that succeeds once), so each
 * execution is counted exactly once.
 */
export async function recordAgentOutcome(
  db: Db,
  execution: Pick<Execution, "agentId" | "startedAt" | "createdAt">,
  outcome: { success: boolean; error?: string | null },
) {
  if (!execution.agentId) return;
  const duration = Date.now() - (execution.startedAt ?? execution.createdAt).getTime();
  await db
    .update(agents)
    .set({
      executionCount: sql`${agents.executionCount} + 1`,
      successCount: outcome.success ? sql`${agents.successCount} + 1` : agents.successCount,
      failureCount: outcome.success ? agents.failureCount : sql`${agents.failureCount} + 1`,
      lastError: outcome.success ? agents.lastError : (outcome.error ?? null),
      lastRunAt: new Date(),
      lastDurationMs: duration,
      totalDurationMs: sql`${agents.totalDurationMs} + ${duration}`,
      updatedAt: new Date(),
    })
    .where(eq(agents.id, execution.agentId));
}
