import { eq } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { accountBudgets } from "../db/schema";
import { nanoUsdOf, usdOf } from "./money";

/** The account's budget (PUT /v1/me/budget): null is no limit. */
export interface AccountBudget {
  max_usd_per_month: number | null;
  max_tokens_per_day: number | null;
}

const NONE: AccountBudget = { max_usd_per_month: null, max_tokens_per_day: null };

export async function readAccountBudget(ctx: ServiceContext): Promise<AccountBudget> {
  const row = await ctx.db.select().from(accountBudgets).where(eq(accountBudgets.userId, ctx.workspace.id)).get();
  if (!row) return NONE;
  return {
    max_usd_per_month: row.maxNanoUsdPerMonth === null ? null : usdOf(row.maxNanoUsdPerMonth),
    max_tokens_per_day: row.maxTokensPerDay,
  };
}

/** Sets what `change` names (null clears it); a field left out keeps its value. Answers the budget as stored. */
export async function writeAccountBudget(ctx: ServiceContext, change: Partial<AccountBudget>): Promise<AccountBudget> {
  const set: Partial<typeof accountBudgets.$inferInsert> = {};
  if (change.max_usd_per_month !== undefined) set.maxNanoUsdPerMonth = change.max_usd_per_month === null ? null : nanoUsdOf(change.max_usd_per_month);
  if (change.max_tokens_per_day !== undefined) set.maxTokensPerDay = change.max_tokens_per_day;
  await ctx.db
    .insert(accountBudgets)
    .values({ userId: ctx.workspace.id, ...set })
    .onConflictDoUpdate({ target: accountBudgets.userId, set: { ...set, updatedAt: new Date() } });
  return readAccountBudget(ctx);
}
