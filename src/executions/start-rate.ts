import type { ServiceContext } from "../core/context";
import type { RateLimitSettings } from "../workflows/flow-control-settings";

/**
 * settings.rate_limit: starts counted per workflow in fixed windows of `period_seconds`
 * (`rate_windows`), each count taken by one conditional upsert, so concurrent starts never pass
 * the limit. `skip` refuses a start past it; `queue` gives it a place in the first window with
 * room, filled in order, at most MAX_QUEUED_WINDOWS ahead.
 */

/** How many windows ahead a queued start may be placed; past that it is skipped too. */
export const MAX_QUEUED_WINDOWS = 1000;

/** The time the start may run from (now, or a later window's start), or null: skipped. */
export async function claimRateSlot(ctx: ServiceContext, workflowId: number, rule: RateLimitSettings, now = Date.now()): Promise<number | null> {
  const period = rule.period_seconds * 1000;
  const current = Math.floor(now / period) * period;
  if (rule.mode !== "queue") return (await claimIn(ctx, workflowId, current, rule.limit)) ? now : null;
  for (let attempt = 0; attempt < 4; attempt++) {
    // Windows fill in order: the latest one in use has room, or the one after it is next.
    const latest = await ctx.db.$client
      .prepare("SELECT window_start AS start, starts FROM rate_windows WHERE workflow_id = ?1 AND window_start >= ?2 ORDER BY window_start DESC LIMIT 1")
      .bind(workflowId, current)
      .first<{ start: number; starts: number }>();
    const target = !latest ? current : latest.starts < rule.limit ? latest.start : latest.start + period;
    if (target > current + MAX_QUEUED_WINDOWS * period) return null;
    if (await claimIn(ctx, workflowId, target, rule.limit)) return Math.max(now, target);
  }
  return null;
}

async function claimIn(ctx: ServiceContext, workflowId: number, windowStart: number, limit: number): Promise<boolean> {
  const claimed = await ctx.db.$client
    .prepare(
      `INSERT INTO rate_windows (workflow_id, window_start, starts) VALUES (?1, ?2, 1)
       ON CONFLICT (workflow_id, window_start) DO UPDATE SET starts = starts + 1 WHERE starts < ?3 RETURNING starts`,
    )
    .bind(workflowId, windowStart, limit)
    .first();
  return claimed !== null;
}
