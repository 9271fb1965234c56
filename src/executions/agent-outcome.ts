import { and, eq, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { agents, type Execution } from "../db/schema";

/**
 * The update that counts a finished execution into its agent's monitoring. It must run only with
 * the execution's own final transition (a conditional update that succeeds once), so each
 * execution is counted exactly once: `onlyIf` is that condition when both go in one batch.
 */
export function agentOutcomeUpdate(
  db: Db,
  execution: Pick<Execution, "agentId" | "startedAt" | "createdAt">,
  outcome: { success: boolean; error?: string | null },
  onlyIf?: SQL,
) {
  const duration = Date.now() - (execution.startedAt ?? execution.createdAt).getTime();
  return db
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
    .where(and(eq(agents.id, execution.agentId ?? ""), onlyIf));
}
