import { z } from "@hono/zod-openapi";
import { PageQuery, pageOf } from "../http/pagination";
import { authedRoute, createRouter, notFoundError } from "../http/router";
import { Timestamp } from "../http/schemas";
import { MEMORY_LIMITS } from "./limits";
import { deleteMemory, listMemories } from "./service";

const MemorySchema = z
  .object({
    id: z.number().int(),
    text: z.string(),
    created_at: Timestamp,
    source: z
      .object({
        conversation_id: z.number().int().optional().openapi({ description: "The conversation whose turn saved it." }),
        execution_id: z.string().optional().openapi({ description: "The run whose `agent` step saved it." }),
      })
      .openapi({ description: "Where it was saved; empty when neither is known." }),
  })
  .openapi("AgentMemory");

const AgentId = z.object({
  agent_id: z
    .string()
    .uuid()
    .openapi({ param: { name: "agent_id", in: "path" } }),
});

const MemoryParams = AgentId.extend({
  memory_id: z.coerce
    .number()
    .int()
    .positive()
    .openapi({ param: { name: "memory_id", in: "path" }, example: 1 }),
});

const list = authedRoute("data:read", {
  method: "get",
  path: "/agents/{agent_id}/memories",
  tags: ["Agents"],
  summary: "The agent's memories",
  description: `What the agent saved with \`memory_save\` (agent_config.memory), newest first. \`q\` keeps the memories holding every word of it (English words in any form: "sending" finds "send"); FTS5 operators in it are read as words. At most ${MEMORY_LIMITS.perAgent.toLocaleString("en")} memories of ${MEMORY_LIMITS.textChars.toLocaleString("en")} characters per agent.`,
  request: {
    params: AgentId,
    query: PageQuery.extend({
      q: z
        .string()
        .max(MEMORY_LIMITS.queryChars)
        .optional()
        .openapi({ param: { name: "q", in: "query" }, description: "Words every listed memory holds." }),
    }),
  },
  responses: { 200: { description: "A page of memories", content: { "application/json": { schema: pageOf(MemorySchema) } } }, ...notFoundError },
});

const remove = authedRoute("data:write", {
  method: "delete",
  path: "/agents/{agent_id}/memories/{memory_id}",
  tags: ["Agents"],
  summary: "Forget one of the agent's memories",
  description: "The agent's later turns and steps no longer find or recall it.",
  request: { params: MemoryParams },
  responses: { 204: { description: "Deleted" }, ...notFoundError },
});

export const memoryRoutes = createRouter()
  .openapi(list, async (c) => c.json(await listMemories(c.var.ctx, c.req.valid("param").agent_id, c.req.valid("query")), 200))
  .openapi(remove, async (c) => {
    const { agent_id, memory_id } = c.req.valid("param");
    await deleteMemory(c.var.ctx, agent_id, memory_id);
    return c.body(null, 204);
  });
