import type { ServiceContext } from "../core/context";
import { createConversation } from "../conversations/service";
import { buildFromDescription } from "../workflows/builder";
import { createWorkflow } from "../workflows/service";
import { checkAgentConfig } from "./agent-config";
import { deployAgent } from "./service";

/**
 * A chat agent from a description: the workflow built from it, deployed as an agent acting with
 * the caller's credential, and a conversation opened with it. The three are linked: the agent runs
 * the workflow (`workflow_id`), the conversation belongs to the agent (`agent_id`), so its turns use
 * the agent's `agent_config` (instructions, provider, model, tools). Each part obeys its own quota;
 * `agent_config` is checked before anything is made.
 */
export async function createChatAgent(
  ctx: ServiceContext,
  input: { description: string; name?: string | null; provider?: string | null; agent_config?: Record<string, unknown> | null },
) {
  const config = { description: input.description, ...(input.agent_config ?? {}) };
  await checkAgentConfig(ctx, config);
  const built = await buildFromDescription(ctx, input.description, { name: input.name, provider: input.provider });
  const workflow = await createWorkflow(ctx, {
    name: built.name,
    description: input.description,
    steps: built.steps,
    variables: built.variables,
    metadata: { built_by: built.provider, chat_agent: true },
  });
  const { agent, webhookSecret } = await deployAgent(ctx, { workflowId: workflow.id, config });
  const conversation = await createConversation(ctx, `Chat with ${workflow.name}`.slice(0, 200), agent.id);
  return { workflow, agent, webhookSecret, conversation };
}
