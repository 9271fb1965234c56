import { eq } from "drizzle-orm";
import type { ServiceContext } from "../../core/context";
import { agents } from "../../db/schema";
import type { Step } from "../../workflows/steps";

type LlmStep = Extract<Step, { type: "llm" }>;

/** What an agent's `agent_config` sets for the model calls of its runs (DESIGN §5). */
export interface AgentModelSettings {
  instructions?: string;
  provider?: string;
  model?: string;
}

/** The model settings of the agent a run belongs to; none for a run of no agent. */
export async function agentModelSettings(ctx: ServiceContext, agentId: string | null): Promise<AgentModelSettings> {
  if (!agentId) return {};
  const row = await ctx.db.select({ config: agents.config }).from(agents).where(eq(agents.id, agentId)).get();
  const config = row?.config ?? {};
  const text = (value: unknown) => (typeof value === "string" && value.trim() ? value : undefined);
  return { instructions: text(config.instructions), provider: text(config.provider), model: text(config.model) };
}

/**
 * The step as the agent runs it: the step's own provider and model win, the agent's fill in what
 * it leaves out; the agent's instructions come before the step's system prompt.
 */
export function withAgentSettings(step: LlmStep, system: string | undefined, settings: AgentModelSettings): { step: LlmStep; system: string | undefined } {
  const provider = step.provider ?? settings.provider;
  // A model belongs to its provider: the agent's model only goes with the agent's provider.
  const model = step.model ?? (step.provider === undefined || step.provider === settings.provider ? settings.model : undefined);
  const joined = [settings.instructions, system].filter(Boolean).join("\n\n");
  return { step: { ...step, provider, model }, system: joined || undefined };
}
