import { and, eq, gte, sql } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { modelUsage } from "../db/schema";

/** One model request that got an answer, as the ledger keeps it (DESIGN §6.2 Ledger). */
export interface LedgerEntry {
  agentId: string | null;
  conversationId: number | null;
  executionId: string | null;
  workflowId: number | null;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costNanoUsd: number;
}

/** What something has spent: its tokens (input and output) and its cost. */
export interface Spent {
  tokens: number;
  nanoUsd: number;
}

/** Writes one row for the caller; awaited by the caller, so the next budget check counts it. */
export async function recordUsage(ctx: ServiceContext, entry: LedgerEntry): Promise<void> {
  await ledgerInsert(ctx, entry);
}

/** The insert of one row for the caller, for a batch of the caller's own (run it, or hand it to `d1.batch`). */
export const ledgerInsert = (ctx: ServiceContext, entry: LedgerEntry) => ctx.db.insert(modelUsage).values({ userId: ctx.workspace.id, ...entry });

const spentColumns = {
  tokens: sql<number>`coalesce(sum(${modelUsage.inputTokens} + ${modelUsage.outputTokens}), 0)`,
  nanoUsd: sql<number>`coalesce(sum(${modelUsage.costNanoUsd}), 0)`,
};

/** A run's spending (index on execution_id). */
export async function spentByRun(ctx: ServiceContext, executionId: string): Promise<Spent> {
  const row = await ctx.db
    .select(spentColumns)
    .from(modelUsage)
    .where(and(eq(modelUsage.executionId, executionId), eq(modelUsage.userId, ctx.workspace.id)))
    .get();
  return row ?? { tokens: 0, nanoUsd: 0 };
}

/** An agent's spending since `since` (index on agent_id, created_at). */
export async function spentByAgentSince(ctx: ServiceContext, agentId: string, since: Date): Promise<Spent> {
  const row = await ctx.db
    .select(spentColumns)
    .from(modelUsage)
    .where(and(eq(modelUsage.agentId, agentId), gte(modelUsage.createdAt, since), eq(modelUsage.userId, ctx.workspace.id)))
    .get();
  return row ?? { tokens: 0, nanoUsd: 0 };
}

/** The account's spending since `since` (index on user_id, created_at). */
export async function spentByAccountSince(ctx: ServiceContext, since: Date): Promise<Spent> {
  const row = await ctx.db
    .select(spentColumns)
    .from(modelUsage)
    .where(and(eq(modelUsage.userId, ctx.workspace.id), gte(modelUsage.createdAt, since)))
    .get();
  return row ?? { tokens: 0, nanoUsd: 0 };
}

/** Budgets count in UTC: a day from midnight, a month from its first day. */
export const utcDayStart = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
export const utcMonthStart = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
