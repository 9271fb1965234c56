import { and, eq } from "drizzle-orm";
import type { ServiceContext } from "../../core/context";
import { agents } from "../../db/schema";
import { type AgentModelSettings, agentSettingsOf } from "../../llm/agent-config";
import { type AgentBudget, agentBudgetOf } from "../../usage/agent-budget";
import type { Step } from "../../workflows/steps";

/** What a run's agent sets for its model steps: its model settings and its budget, read at once; none for a run of no agent. */
export async function agentStepSettings(ctx: ServiceContext, agentId: string | null): Promise<{ settings: AgentModelSettings; budget?: AgentBudget }> {
  if (!agentId) return { settings: {} };
  const row = await ctx.db
    .select({ config: agents.config })
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.userId, ctx.workspace.id)))
    .get();
  return { settings: agentSettingsOf(row?.config), budget: agentBudgetOf(row?.config) };
}

type LlmStep = Extract<Step, { type: "llm" }>;

/**
 * The step as the agent runs it: the step's own provider and model win, the agent's fill in what
 * it leaves out; the agent's instructions come before the step's system prompt. An llm step offers
 * the model no tools, so the agent's `tools` has nothing to take away here (chat turns apply it).
 */
export function withAgentSettings(step: LlmStep, system: string | undefined, settings: AgentModelSettings): { step: LlmStep; system: string | undefined } {
  const provider = step.provider ?? settings.provider;
  // A model belongs to its provider: the agent's model only goes with the agent's provider.
  const model = step.model ?? (step.provider === undefined || step.provider === settings.provider ? settings.model : undefined);
  const joined = [settings.instructions, system].filter(Boolean).join("\n\n");
  return { step: { ...step, provider, model }, system: joined || undefined };
}
