import { and, eq } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { agents, conversations } from "../db/schema";
import { type AgentModelSettings, agentSettingsOf } from "../llm/agent-config";
import type { ToolInfo } from "../tools/types";
import { type LoopSettings, loopSettingsOf } from "../agent-loop/settings";
import { type PolicyRule, agentRulesOf } from "../governance/policies";
import { type NotifyChannel, notifyChannelsOf } from "../approvals/channels/schema";
import { approvalTtlSeconds } from "../approvals/settings";
import { type AgentBudget, agentBudgetOf } from "../usage/agent-budget";

/** What a conversation's turns read of the agent it talks to (all defaults for a plain conversation). */
export interface ConversationAgent {
  agentId: string | null;
  settings: AgentModelSettings;
  loop: LoopSettings;
  /** agent_config.memory: the agent's memory tools and recalled memories in each turn. */
  memory: boolean;
  /** DESIGN §6.2: the agent's tool_policies, approval_ttl_seconds and approvals.notify. */
  approvals: { rules: PolicyRule[]; ttlSeconds: number; notify: NotifyChannel[] };
  /** agent_config.budget: what the agent's turns may spend (DESIGN §6.2 Budgets); none set: undefined. */
  budget: AgentBudget | undefined;
}

export async function conversationAgent(ctx: ServiceContext, conversationId: number): Promise<ConversationAgent> {
  const row = await ctx.db
    .select({ id: agents.id, config: agents.config })
    .from(conversations)
    .innerJoin(agents, and(eq(agents.id, conversations.agentId), eq(agents.userId, conversations.userId)))
    .where(and(eq(conversations.id, conversationId), eq(conversations.userId, ctx.workspace.id)))
    .get();
  return {
    agentId: row?.id ?? null,
    settings: row ? agentSettingsOf(row.config) : {},
    loop: loopSettingsOf(row?.config),
    memory: row?.config?.memory === true,
    approvals: { rules: agentRulesOf(row?.config), ttlSeconds: approvalTtlSeconds(row?.config), notify: notifyChannelsOf(row?.config) },
    budget: agentBudgetOf(row?.config),
  };
}

/** The agent_config of the agent a conversation talks to; none for a plain conversation. */
export async function conversationAgentSettings(ctx: ServiceContext, conversationId: number): Promise<AgentModelSettings> {
  const row = await ctx.db
    .select({ config: agents.config })
    .from(conversations)
    // The agent must be the conversation owner's own (it always is; this keeps it so).
    .innerJoin(agents, and(eq(agents.id, conversations.agentId), eq(agents.userId, conversations.userId)))
    .where(and(eq(conversations.id, conversationId), eq(conversations.userId, ctx.workspace.id)))
    .get();
  return row ? agentSettingsOf(row.config) : {};
}

/** The catalog as the agent sees it: only the tools its agent_config.tools lists, when it lists any. */
export function agentCatalog(catalog: ToolInfo[], settings: AgentModelSettings): ToolInfo[] {
  const allowed = settings.tools;
  return allowed ? catalog.filter((tool) => allowed.includes(tool.name)) : catalog;
}

/** The system prompt of the agent's turns: the hub's, then the agent's instructions. */
export function agentSystemPrompt(base: string, settings: AgentModelSettings): string {
  return settings.instructions ? `${base}\n\n${settings.instructions}` : base;
}

/**
 * The provider and model of a turn: the message's provider, else the agent's; the agent's model
 * goes only with the agent's provider (a model belongs to its provider), or with the default
 * provider when the agent names a model and no provider.
 */
export function agentProviderChoice(requested: string | null, settings: AgentModelSettings): { provider: string | null; model?: string } {
  const provider = requested ?? settings.provider ?? null;
  const model = requested === null || requested === settings.provider ? settings.model : undefined;
  return { provider, model };
}
