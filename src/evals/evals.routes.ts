import { z } from "@hono/zod-openapi";
import { authedRoute, createRouter, notFoundError } from "../http/router";
import { EvalRequestSchema, EvalSchema, MAX_EVAL_CASES } from "./schemas";
import { getEval, runEval } from "./service";

const AgentId = z.object({
  agent_id: z
    .string()
    .uuid()
    .openapi({ param: { name: "agent_id", in: "path" } }),
});

const run = authedRoute("workflow:execute", {
  method: "post",
  path: "/agents/{agent_id}/evals",
  tags: ["Agents"],
  summary: "Run an eval of the agent",
  description: `Runs each case (at most ${MAX_EVAL_CASES}) with the agent's model, instructions, tools and policies; every tool call is answered from the case's \`mocks\` (an unmocked tool answers \`{mocked: false}\`), so nothing outside is called and no approval is stored. Each case's trajectory and output are compared with its \`expect\`. Model requests are metered and budgeted as the agent's. See docs/autonomous-agents.md.`,
  request: { params: AgentId, body: { required: true, content: { "application/json": { schema: EvalRequestSchema } } } },
  responses: { 201: { description: "The eval, with a verdict per case", content: { "application/json": { schema: EvalSchema } } }, ...notFoundError },
});

const read = authedRoute("data:read", {
  method: "get",
  path: "/agents/{agent_id}/evals/{eval_id}",
  tags: ["Agents"],
  summary: "An eval of the agent, read again",
  request: {
    params: AgentId.extend({
      eval_id: z
        .string()
        .min(1)
        .max(64)
        .openapi({ param: { name: "eval_id", in: "path" } }),
    }),
  },
  responses: { 200: { description: "The eval", content: { "application/json": { schema: EvalSchema } } }, ...notFoundError },
});

export const evalRoutes = createRouter()
  .openapi(run, async (c) => c.json(await runEval(c.var.ctx, c.req.valid("param").agent_id, c.req.valid("json").cases), 201))
  .openapi(read, async (c) => {
    const { agent_id, eval_id } = c.req.valid("param");
    return c.json(await getEval(c.var.ctx, agent_id, eval_id), 200);
  });
