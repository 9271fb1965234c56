import type { ServiceContext } from "../core/context";
import { createConversation } from "../conversations/service";
import { buildFromDescription } from "../workflows/builder";
import { createWorkflow } from "../workflows/service";
import { deployAgent } from "./service";

/**
 * A chat agent from a description: the workflow built from it, deployed as an agent acting with
 * the caller's credential, and a conversation opened with it. Each part obeys its own quota.
 */
export async function createChatAgent(ctx: ServiceContext, input: { description: string; name?: string | null; provider?: string | null }) {
  const built = await buildFromDescription(ctx, input.description, { name: input.name, provider: input.provider });
  const workflow = await createWorkflow(ctx, {
    name: built.name,
    description: input.description,
    steps: built.steps,
    variables: built.variables,
    metadata: { built_by: built.provider, chat_agent: true },
  });
  const { agent, webhookSecret } = await deployAgent(ctx, { workflowId: workflow.id, config: { description: input.description } });
  const conversation = await createConversation(ctx, `Chat with ${workflow.name}`.slice(0, 200));
  return { workflow, agent, webhookSecret, conversation };
}
