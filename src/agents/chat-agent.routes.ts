import { z } from "@hono/zod-openapi";
import { authedRoute, createRouter } from "../http/router";
import { createConversation } from "../conversations/service";
import { buildFromDescription } from "../workflows/builder";
import { Name, WorkflowSchema } from "../workflows/schemas";
import { createWorkflow, presentWorkflow } from "../workflows/service";
import { AgentSchema } from "./routes";
import { deployAgent, presentAgent } from "./service";

/**
 * POST /v1/workflows/chat-agent: builds a workflow from a description, deploys it as an agent and
 * opens a conversation with it. It lives with agents (it deploys one); its path is SPEC's.
 */
const chatAgent = authedRoute(["data:write", "workflow:execute"], {
  method: "post",
  path: "/workflows/chat-agent",
  tags: ["Workflows"],
  summary: "Create a chat agent from a workflow description",
  description:
    "Builds the workflow (as POST /v1/workflows/build does), deploys it as an agent, and opens a conversation for talking to it. The agent's webhook secret is returned once.",
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({ description: z.string().trim().min(1).max(5000), name: Name.nullish(), provider: z.string().max(50).nullish() }),
        },
      },
    },
  },
  responses: {
    201: {
      description: "Created",
      content: {
        "application/json": {
          schema: z.object({ workflow: WorkflowSchema, agent: AgentSchema.extend({ webhook_secret: z.string() }), conversation_id: z.number().int() }),
        },
      },
    },
  },
});

export const chatAgentRoutes = createRouter().openapi(chatAgent, async (c) => {
  const body = c.req.valid("json");
  const principal = c.get("principal");
  const db = c.get("db");
  const built = await buildFromDescription({ env: c.env, config: c.get("config"), db, userId: principal.userId }, body.description, {
    name: body.name,
    provider: body.provider,
  });
  const workflow = await createWorkflow(
    db,
    principal.userId,
    {
      name: built.name,
      description: body.description,
      steps: built.steps,
      variables: built.variables,
      metadata: { built_by: built.provider, chat_agent: true },
    },
    c.get("config").quotas.workflowsPerUser,
  );
  const { agent, webhookSecret } = await deployAgent(c.env, db, {
    userId: principal.userId,
    credentialId: principal.credentialId,
    workflowId: workflow.id,
    config: { description: body.description },
    maxAgents: c.get("config").quotas.agentsPerUser,
  });
  const conversation = await createConversation(db, principal.userId, `Chat with ${workflow.name}`.slice(0, 200));
  c.header("Cache-Control", "no-store");
  return c.json(
    {
      workflow: presentWorkflow(workflow),
      agent: { ...presentAgent(agent, workflow.name), webhook_secret: webhookSecret },
      conversation_id: conversation.id,
    },
    201,
  );
});
