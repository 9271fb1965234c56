import { z } from "@hono/zod-openapi";
import { authedRoute, createRouter, notFoundError } from "../http/router";
import { PageQuery, pageOf } from "../http/pagination";
import { AgentEventSchema, listAgentEvents } from "./events";
import { setProviderSecret } from "./service";

const AgentId = z.object({
  agent_id: z
    .string()
    .uuid()
    .openapi({ param: { name: "agent_id", in: "path" } }),
});

const setSecret = authedRoute(["data:write", "workflow:execute"], {
  method: "put",
  path: "/agents/{agent_id}/webhook-secret",
  tags: ["Agents"],
  summary: "Set the provider's webhook signing secret",
  description:
    "For a webhook trigger verified the provider's way (`stripe`, `github`, `slack`, `shopify`, `hubspot`, `typeform`) or by `token`: the secret the provider signs with (Stripe's `whsec_…`, Slack's signing secret, the secret you typed into GitHub or Typeform, Shopify's or HubSpot's app secret), or the token callers present. Replaces any earlier one. Stored encrypted; never returned.",
  request: {
    params: AgentId,
    body: {
      required: true,
      content: { "application/json": { schema: z.object({ secret: z.string().min(16).max(1000).openapi({ description: "16 to 1,000 characters." }) }) } },
    },
  },
  responses: { 204: { description: "Set" }, ...notFoundError },
});

const events = authedRoute("data:read", {
  method: "get",
  path: "/agents/{agent_id}/events",
  tags: ["Agents"],
  summary: "The agent's deliveries and polls, with their outcomes",
  description:
    "Newest first, kept 7 days. Each webhook delivery, poll, scheduled fire and manual run: `started` (with its execution), `duplicate` (an event id seen before), `ignored` (a type outside `event_types`, a handshake, a poll with nothing new), `rejected` (why the signature was refused, never the secret) or `error` (why no run started). Polls that find nothing new in a row share one entry.",
  request: { params: AgentId, query: PageQuery },
  responses: { 200: { description: "A page of events", content: { "application/json": { schema: pageOf(AgentEventSchema) } } }, ...notFoundError },
});

export const agentTriggerRoutes = createRouter()
  .openapi(setSecret, async (c) => {
    await setProviderSecret(c.var.ctx, c.req.valid("param").agent_id, c.req.valid("json").secret);
    return c.body(null, 204);
  })
  .openapi(events, async (c) => c.json(await listAgentEvents(c.var.ctx, c.req.valid("param").agent_id, c.req.valid("query")), 200));
