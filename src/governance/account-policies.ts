import { eq } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { toolPolicies } from "../db/schema";
import { type PolicyRule, PolicyRulesSchema } from "./policies";

/** The account's rules (GET /v1/me/tool-policies), consulted after an agent's own; none stored: none. */
export async function accountRules(ctx: ServiceContext): Promise<PolicyRule[]> {
  const row = await ctx.db.select({ rules: toolPolicies.rules }).from(toolPolicies).where(eq(toolPolicies.userId, ctx.workspace.id)).get();
  const parsed = PolicyRulesSchema.safeParse(row?.rules ?? []);
  return parsed.success ? parsed.data : [];
}

/** Replaces the account's rules whole (validated by the route's schema). */
export async function setAccountRules(ctx: ServiceContext, rules: PolicyRule[]): Promise<PolicyRule[]> {
  await ctx.db
    .insert(toolPolicies)
    .values({ userId: ctx.workspace.id, rules })
    .onConflictDoUpdate({ target: toolPolicies.userId, set: { rules, updatedAt: new Date() } });
  return rules;
}
