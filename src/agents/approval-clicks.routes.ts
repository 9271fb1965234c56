import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import type { AppEnv } from "../http/app-env";
import { clientAddress, consumeRateLimits, exhaustedOf, rateLimited } from "../http/rate-limit";
import { ProblemSchema } from "../http/schemas";
import { answerSlackClick } from "./approval-clicks";

/**
 * POST /v1/hooks/slack/interactions: Slack's Interactivity Request URL, where clicks on the
 * approval buttons arrive (form-encoded `payload=<json>`). A plain handler: the signature covers
 * the raw body. Mounted before the JSON-body middleware; the /v1 body limit applies, and calls
 * count per client address like the agents' webhooks.
 */
export const slackInteractions = new Hono<AppEnv>().post("/hooks/slack/interactions", async (c) => {
  const runtime = c.get("runtime");
  const limits = await consumeRateLimits(runtime.bindings.RATE_LIMITER, `addr:${clientAddress(c)}`, [
    { name: "webhooks", limit: runtime.config.limits.requestsPerMinute },
  ]);
  if (exhaustedOf(limits)) throw rateLimited(limits, { webhooks: "webhook calls" });
  // The bytes as sent (decoded, not read as text: the runtime warns about text() on a form body).
  const rawBody = new TextDecoder().decode(await c.req.arrayBuffer());
  const body = await answerSlackClick(runtime, { method: c.req.method, url: c.req.url, headers: c.req.raw.headers, rawBody });
  return c.json(body, 200);
});

/** The hook is a plain handler (it reads the raw body to verify it); this documents it. */
export function describeSlackInteractions(v1: OpenAPIHono<AppEnv, any, any>) {
  v1.openAPIRegistry.registerPath({
    method: "post",
    path: "/hooks/slack/interactions",
    tags: ["Approvals"],
    summary: "Approve or deny from Slack (the Slack app's Interactivity Request URL)",
    description:
      "No bearer credential: Slack posts here when someone clicks Approve or Deny on an approval's message (`block_actions`, form-encoded `payload`). The button's value names the approval; the request must carry `X-Slack-Signature: v0=<hex HMAC-SHA256 of \"v0:<X-Slack-Request-Timestamp>:<raw body>\">` under the `signing_secret` of one of the approval's Slack connections, with a timestamp within 5 minutes. The click decides as the approval's owner, recorded as `decided_by: slack:<Slack user id>`, and the message is updated to say who decided what. A click on an approval already decided or expired answers 200 with an ephemeral note for the person who clicked. Anything else (an unknown approval, no signing secret, a wrong or stale signature) is 401, always with the same body.",
    security: [],
    request: {
      body: {
        required: true,
        content: {
          "application/x-www-form-urlencoded": { schema: z.object({ payload: z.string().openapi({ description: "The block_actions payload, JSON." }) }) },
        },
      },
    },
    responses: {
      200: {
        description: "Decided (an empty object), or a note that it was decided already",
        content: {
          "application/json": {
            schema: z.object({ response_type: z.literal("ephemeral").optional(), replace_original: z.boolean().optional(), text: z.string().optional() }),
          },
        },
      },
      401: { description: "Not a verified click on an approval's button", content: { "application/problem+json": { schema: ProblemSchema } } },
      413: { description: "Body larger than 1 MiB", content: { "application/problem+json": { schema: ProblemSchema } } },
      429: { description: "Too many calls", content: { "application/problem+json": { schema: ProblemSchema } } },
    },
  });
}
