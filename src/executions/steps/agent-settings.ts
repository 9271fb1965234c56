import type { AgentModelSettings } from "../../llm/agent-config";
import type { Step } from "../../workflows/steps";

export { agentModelSettings } from "../../llm/agent-config";

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
