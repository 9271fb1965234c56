import { and, asc, eq, gte, lt, sql } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { validationFailed } from "../core/errors";
import { modelUsage } from "../db/schema";
import { usdOf } from "./money";

export const GROUPS = ["day", "agent", "model", "conversation", "workflow"] as const;
export type UsageGroup = (typeof GROUPS)[number];

/** A report covers at most this many days, so one request reads a bounded part of the ledger. */
export const MAX_SPAN_DAYS = 366;
/** Without `from`, a report starts this many days before `to`. */
export const DEFAULT_SPAN_DAYS = 30;
const DAY_MS = 86_400_000;

export interface UsageAmounts {
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  model_calls: number;
}

export interface UsageReport {
  data: ({ key: string | null } & UsageAmounts)[];
  totals: UsageAmounts;
  from: string;
  to: string;
  group_by: UsageGroup;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A bound of the range: a date (`2026-11-01`, the start of that UTC day; as `to`, the day is
 * included) or a date-time with a zone. Anything else is a 422 naming the parameter.
 */
function boundOf(text: string, name: "from" | "to"): Date {
  const time = DATE_ONLY.test(text) ? Date.parse(`${text}T00:00:00Z`) + (name === "to" ? DAY_MS : 0) : Date.parse(text);
  const zoned = DATE_ONLY.test(text) || /(Z|[+-]\d{2}:?\d{2})$/i.test(text);
  if (!zoned || Number.isNaN(time)) {
    throw validationFailed([{ location: "query", field: name, message: "An ISO 8601 date (2026-11-01) or date-time with a zone (2026-11-01T09:00:00Z)." }]);
  }
  return new Date(time);
}

/** The range asked for: `to` defaults to now, `from` to DEFAULT_SPAN_DAYS before `to`; at most MAX_SPAN_DAYS. */
export function usageRange(query: { from?: string; to?: string }, now = new Date()): { from: Date; to: Date } {
  const to = query.to ? boundOf(query.to, "to") : now;
  const from = query.from ? boundOf(query.from, "from") : new Date(to.getTime() - DEFAULT_SPAN_DAYS * DAY_MS);
  if (from.getTime() >= to.getTime()) throw validationFailed([{ location: "query", field: "from", message: "Must come before `to`." }]);
  if (to.getTime() - from.getTime() > MAX_SPAN_DAYS * DAY_MS) {
    throw validationFailed([{ location: "query", field: "to", message: `A report covers at most ${MAX_SPAN_DAYS} days.` }]);
  }
  return { from, to };
}

const KEYS = {
  day: sql<string>`strftime('%Y-%m-%d', ${modelUsage.createdAt} / 1000, 'unixepoch')`,
  agent: sql<string | null>`${modelUsage.agentId}`,
  model: sql<string>`${modelUsage.model}`,
  conversation: sql<string | null>`cast(${modelUsage.conversationId} as text)`,
  workflow: sql<string | null>`cast(${modelUsage.workflowId} as text)`,
} satisfies Record<UsageGroup, unknown>;

/**
 * The caller's ledger between `from` (inclusive) and `to` (exclusive), summed per group, and the
 * totals: sums of what the providers reported, costs added in nano-dollars, so both are exact.
 * Days come oldest first; other groups costliest first. Groups are bounded by what an account
 * may hold (its days in range, models, agents, workflows and conversations).
 */
export async function usageReport(ctx: ServiceContext, range: { from: Date; to: Date }, groupBy: UsageGroup): Promise<UsageReport> {
  const key = KEYS[groupBy];
  const cost = sql<number>`sum(${modelUsage.costNanoUsd})`;
  const rows = await ctx.db
    .select({
      key,
      input: sql<number>`sum(${modelUsage.inputTokens})`,
      output: sql<number>`sum(${modelUsage.outputTokens})`,
      nanoUsd: cost,
      calls: sql<number>`count(*)`,
    })
    .from(modelUsage)
    .where(and(eq(modelUsage.userId, ctx.workspace.id), gte(modelUsage.createdAt, range.from), lt(modelUsage.createdAt, range.to)))
    .groupBy(key)
    .orderBy(groupBy === "day" ? asc(key) : sql`${cost} desc, ${key}`)
    .all();
  const totals = { input: 0, output: 0, nanoUsd: 0, calls: 0 };
  for (const row of rows) {
    totals.input += row.input;
    totals.output += row.output;
    totals.nanoUsd += row.nanoUsd;
    totals.calls += row.calls;
  }
  const amounts = (a: typeof totals): UsageAmounts => ({ input_tokens: a.input, output_tokens: a.output, cost_usd: usdOf(a.nanoUsd), model_calls: a.calls });
  return {
    data: rows.map((row) => ({ key: row.key, ...amounts(row) })),
    totals: amounts(totals),
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    group_by: groupBy,
  };
}
