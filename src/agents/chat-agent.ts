import type { ServiceContext } from "../core/context";
import { createConversation } from "../conversations/service";
import { createWorkflow } from "../workflows/service";
import { checkAgentConfig } from "./agent-config";
import { deployAgent } from "./service";

/**
 * The one step of a chat agent's workflow (DESIGN §6.3): an `agent` step whose instructions are the
 * description and whose prompt is the run's whole input as JSON (`{{input}}`: a run started with
 * `{"message": "…"}` hands the model that object), so a webhook's payload reaches it whole.
 */
export function chatAgentStep(description: string, provider?: string | null) {
  return { id: "agent", type: "agent" as const, prompt: "{{input}}", instructions: description, ...(provider ? { provider } : {}) };
}

/**
 * A chat agent from a description: a workflow of one `agent` step (chatAgentStep), deployed as an
 * agent acting with the caller's credential, and a conversation opened with it. The three are
 * linked: the agent runs the workflow (`workflow_id`), the conversation belongs to the agent
 * (`agent_id`), so its turns and its runs' agent step use the agent's `agent_config`
 * (instructions, provider, model, tools, policies, budget). Each part obeys its own quota;
 * `agent_config` is checked before anything is made.
 */
export async function createChatAgent(
  ctx: ServiceContext,
  input: { description: string; name?: string | null; provider?: string | null; agent_config?: Record<string, unknown> | null },
) {
  const config = { description: input.description, ...(input.agent_config ?? {}) };
  await checkAgentConfig(ctx, config);
  const workflow = await createWorkflow(ctx, {
    name: input.name?.trim() || nameOf(input.description),
    description: input.description,
    steps: [chatAgentStep(input.description, input.provider)],
    metadata: { chat_agent: true },
  });
  const { agent, webhookSecret } = await deployAgent(ctx, { workflowId: workflow.id, config });
  const conversation = await createConversation(ctx, `Chat with ${workflow.name}`.slice(0, 200), agent.id);
  return { workflow, agent, webhookSecret, conversation };
}

/** A workflow's name from a description: its first line, cut at 80 characters. */
function nameOf(description: string): string {
  const line = description.trim().split("\n")[0]!.trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
