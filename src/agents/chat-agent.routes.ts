import { z } from "@hono/zod-openapi";
import { authedRoute, createRouter } from "../http/router";
import { Name, WorkflowSchema } from "../workflows/schemas";
import { presentWorkflow } from "../workflows/service";
import { ConversationSchema } from "../conversations/schemas";
import { presentConversation } from "../conversations/service";
import { AgentConfig, AgentSchema } from "./agents.routes";
import { createChatAgent } from "./chat-agent";
import { presentAgent } from "./service";

/**
 * POST /v1/workflows/chat-agent: makes a workflow of one `agent` step from a description, deploys
 * it as an agent and opens a conversation with it. It lives with agents (it deploys one); its path is SPEC's.
 */
const chatAgent = authedRoute(["data:write", "workflow:execute"], {
  method: "post",
  path: "/workflows/chat-agent",
  tags: ["Workflows"],
  summary: "Create a chat agent from a workflow description",
  description:
    "Makes a workflow of one `agent` step (id `agent`) whose instructions are the description and whose prompt is the run's whole input as JSON (`{{input}}`), deploys it as an agent, and opens a conversation that belongs to the agent (`conversation.agent_id`): its chat turns and its runs' agent step use the agent's `agent_config` (instructions, provider, model, tools, policies, budget). The workflow is named `name`, else after the description's first line. The agent's webhook secret is returned once.",
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            description: z.string().trim().min(1).max(5000),
            name: Name.nullish(),
            provider: z
              .string()
              .max(50)
              .nullish()
              .openapi({ description: "The model provider of the workflow's agent step (else the agent_config's, else the default)." }),
            agent_config: AgentConfig.nullish().openapi({
              description: "The agent's settings (as POST /v1/agents/deploy takes them); they also apply to the conversation's chat turns.",
            }),
          }),
        },
      },
    },
  },
  responses: {
    201: {
      description: "Created",
      content: {
        "application/json": {
          schema: z.object({
            workflow: WorkflowSchema,
            agent: AgentSchema.extend({ webhook_secret: z.string() }),
            conversation_id: z.number().int(),
            conversation: ConversationSchema,
          }),
        },
      },
    },
  },
});

export const chatAgentRoutes = createRouter().openapi(chatAgent, async (c) => {
  const { workflow, agent, webhookSecret, conversation } = await createChatAgent(c.var.ctx, c.req.valid("json"));
  c.header("Cache-Control", "no-store");
  return c.json(
    {
      workflow: presentWorkflow(workflow),
      agent: { ...presentAgent(agent, workflow.name, workflow.triggerConfig, new URL(c.req.url).origin), webhook_secret: webhookSecret },
      conversation_id: conversation.id,
      conversation: presentConversation(conversation),
    },
    201,
  );
});
