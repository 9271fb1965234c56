import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import type { AppEnv } from "../http/app-env";
import { clientAddress, consumeRateLimits, exhaustedOf, rateLimited } from "../http/rate-limit";
import { ProblemSchema } from "../http/schemas";
import { deliverWebhook } from "./webhook-delivery";

/**
 * POST /v1/hooks/agents/{agent_id}: an event trigger, signed instead of authenticated (see
 * `deliverWebhook`). A plain handler, because the signature covers the raw body; the /v1 body
 * limit applies, and calls count per client address.
 */
export const agentWebhooks = new Hono<AppEnv>().post("/hooks/agents/:agent_id", async (c) => {
  const runtime = c.get("runtime");
  const limits = await consumeRateLimits(runtime.bindings.RATE_LIMITER, `addr:${clientAddress(c)}`, [
    { name: "webhooks", limit: runtime.config.limits.requestsPerMinute },
  ]);
  if (exhaustedOf(limits)) throw rateLimited(limits, { webhooks: "webhook calls" });
  const run = await deliverWebhook(runtime, {
    agentId: c.req.param("agent_id"),
    timestamp: c.req.header("X-Hub-Timestamp") ?? "",
    signature: c.req.header("X-Hub-Signature") ?? "",
    rawBody: await c.req.text(),
  });
  return c.json({ execution_id: run.id, status: "queued" }, 202);
});

/** The webhook is a plain handler (it reads the raw body to verify it); this documents it. */
export function describeAgentWebhook(v1: OpenAPIHono<AppEnv, any, any>) {
  v1.openAPIRegistry.registerPath({
    method: "post",
    path: "/hooks/agents/{agent_id}",
    tags: ["Agents"],
    summary: "Trigger an agent with an event (signed webhook)",
    description:
      "No bearer credential. Send `X-Hub-Timestamp` (unix seconds) and `X-Hub-Signature: sha256=<hex HMAC-SHA256 of \"<timestamp>.<raw body>\">` under the agent's webhook_secret. Refused (401) when the signature is wrong, the timestamp is more than 5 minutes off, or the signature was used before. The JSON body becomes the run's input_data.",
    security: [],
    request: {
      params: z.object({ agent_id: z.string().openapi({ param: { name: "agent_id", in: "path" } }) }),
      headers: z.object({ "X-Hub-Timestamp": z.string(), "X-Hub-Signature": z.string() }),
      body: { required: false, content: { "application/json": { schema: z.record(z.string(), z.unknown()) } } },
    },
    responses: {
      202: { description: "Queued", content: { "application/json": { schema: z.object({ execution_id: z.string(), status: z.literal("queued") }) } } },
      401: { description: "Bad, stale or replayed signature", content: { "application/problem+json": { schema: ProblemSchema } } },
      403: {
        description: "The agent is stopped: the credential that deployed it was revoked",
        content: { "application/problem+json": { schema: ProblemSchema } },
      },
      409: {
        description: "The agent or its workflow is paused, or the account has too many unfinished runs",
        content: { "application/problem+json": { schema: ProblemSchema } },
      },
      413: { description: "Body larger than 1 MiB", content: { "application/problem+json": { schema: ProblemSchema } } },
      429: { description: "Too many calls", content: { "application/problem+json": { schema: ProblemSchema } } },
    },
  });
}
