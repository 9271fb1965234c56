import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import type { AppEnv } from "../http/app-env";
import { clientAddress, consumeRateLimits, exhaustedOf, rateLimited } from "../http/rate-limit";
import { ProblemSchema } from "../http/schemas";
import { deliverWebhook } from "./webhook-delivery";

/**
 * POST /v1/hooks/agents/{agent_id}: an event trigger, signed instead of authenticated (see
 * `deliverWebhook`), in the hub's scheme or a provider's. A plain handler, because signatures
 * cover the raw body; the /v1 body limit applies, and calls count per client address.
 */
export const agentWebhooks = new Hono<AppEnv>().post("/hooks/agents/:agent_id", async (c) => {
  const runtime = c.get("runtime");
  const limits = await consumeRateLimits(runtime.bindings.RATE_LIMITER, `addr:${clientAddress(c)}`, [
    { name: "webhooks", limit: runtime.config.limits.requestsPerMinute },
  ]);
  if (exhaustedOf(limits)) throw rateLimited(limits, { webhooks: "webhook calls" });
  const answer = await deliverWebhook(runtime, {
    agentId: c.req.param("agent_id"),
    method: c.req.method,
    url: c.req.url,
    headers: c.req.raw.headers,
    rawBody: await c.req.text(),
  });
  return c.json(answer.body, answer.status);
});

/** The webhook is a plain handler (it reads the raw body to verify it); this documents it. */
export function describeAgentWebhook(v1: OpenAPIHono<AppEnv, any, any>) {
  v1.openAPIRegistry.registerPath({
    method: "post",
    path: "/hooks/agents/{agent_id}",
    tags: ["Agents"],
    summary: "Trigger an agent with an event (signed webhook)",
    description:
      "No bearer credential. How the call proves itself is the workflow's `trigger_config.verify`. `hub` (the default): `X-Hub-Timestamp` (unix seconds) and `X-Hub-Signature: sha256=<hex HMAC-SHA256 of \"<timestamp>.<raw body>\">` under the agent's webhook_secret; the JSON body becomes the run's input_data, and a signature works once. `stripe`, `github`, `slack`, `shopify`, `hubspot`, `typeform`: the provider's own signature headers under the secret set with `PUT /v1/agents/{agent_id}/webhook-secret`; the run's input_data is `{event, event_id, event_type, received_at}`. `token`: `Authorization: Bearer <secret>` or `?token=<secret>`. Refused (401) when the signature is wrong or missing, the timestamp is more than 5 minutes off, or no secret is set. An event id seen before for this agent answers 200 `{duplicate: true, execution_id}`; a type outside `event_types` 200 `{ignored: true}`; Slack's `url_verification` 200 `{challenge}`; GitHub's `ping` 200. Every delivery is in `GET /v1/agents/{agent_id}/events`.",
    security: [],
    request: {
      params: z.object({ agent_id: z.string().openapi({ param: { name: "agent_id", in: "path" } }) }),
      body: { required: false, content: { "application/json": { schema: z.record(z.string(), z.unknown()) } } },
    },
    responses: {
      200: {
        description: "Verified, nothing started: a duplicate event id, an ignored type, or a provider's handshake",
        content: {
          "application/json": {
            schema: z.object({
              duplicate: z.boolean().optional(),
              execution_id: z.string().optional(),
              ignored: z.boolean().optional(),
              challenge: z.string().optional(),
            }),
          },
        },
      },
      202: { description: "Queued", content: { "application/json": { schema: z.object({ execution_id: z.string(), status: z.literal("queued") }) } } },
      401: {
        description: "Bad, missing, stale or replayed signature, or no signing secret set",
        content: { "application/problem+json": { schema: ProblemSchema } },
      },
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
