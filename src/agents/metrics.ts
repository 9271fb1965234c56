import { and, desc, eq, gte, inArray } from "drizzle-orm";
import type { Db } from "../db/client";
import { executions } from "../db/schema";

const DAY_MS = 24 * 3600 * 1000;
/** The window the metrics cover, and the most runs read for them. */
export const METRICS_WINDOW_DAYS = 30;
const MAX_RUNS_READ = 2000;

/**
 * An agent's performance over its finished runs of the last 30 days (the latest 2,000 at most):
 * duration percentiles, runs per day over the last 7 days, and model tokens.
 */
export async function agentRunMetrics(db: Db, agentId: string, now = Date.now()) {
  const runs = await db
    .select({ startedAt: executions.startedAt, finishedAt: executions.finishedAt, tokensUsed: executions.tokensUsed })
    .from(executions)
    .where(
      and(
        eq(executions.agentId, agentId),
        gte(executions.finishedAt, new Date(now - METRICS_WINDOW_DAYS * DAY_MS)),
        inArray(executions.status, ["succeeded", "failed"]),
        // Test runs (DESIGN §6.5) are not the agent's work.
        eq(executions.mode, "production"),
      ),
    )
    .orderBy(desc(executions.finishedAt))
    .limit(MAX_RUNS_READ)
    .all();
  const durations = runs
    .filter((run) => run.startedAt && run.finishedAt)
    .map((run) => run.finishedAt!.getTime() - run.startedAt!.getTime())
    .sort((a, b) => a - b);
  const lastWeek = runs.filter((run) => run.finishedAt && run.finishedAt.getTime() >= now - 7 * DAY_MS).length;
  const tokens = runs.reduce((sum, run) => sum + run.tokensUsed, 0);
  return {
    window_days: METRICS_WINDOW_DAYS,
    runs_in_window: runs.length,
    p50_duration_ms: percentile(durations, 0.5),
    p95_duration_ms: percentile(durations, 0.95),
    runs_per_day: Math.round((lastWeek / 7) * 100) / 100,
    tokens_used: tokens,
    average_tokens_per_run: runs.length ? Math.round(tokens / runs.length) : null,
  };
}

/** Nearest-rank percentile of sorted values; null for none. */
function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}
