import { z } from "@hono/zod-openapi";
import { base64url } from "../../lib/crypto";
import { hmacHex } from "../../lib/hmac";
import { safeFetch } from "../../net/safe-fetch";
import { retryAfterSeconds } from "./failures";
import { PlatformError, definePlatform, platformTool, secret } from "./types";

type WebhookConfig = { url: string; signing_secret: string };

/**
 * Signed outbound webhooks, in the same scheme the hub accepts inbound: X-Hub-Timestamp (unix
 * seconds) and X-Hub-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">.
 */
export const webhook = definePlatform<WebhookConfig>({
  id: "webhook",
  name: "Webhook",
  description: "Send signed JSON events to any URL (Zapier/Make catch hooks, your own services). Receivers verify X-Hub-Signature with the signing secret.",
  category: "developer",
  authKind: "signing_secret",
  config: z.object({
    url: z.string().url().max(2000),
    signing_secret: secret("Shared secret for the HMAC-SHA256 signature; give the receiver the same value."),
  }),
  secretFields: ["signing_secret"],
  tools: [
    platformTool({
      action: "send",
      effect: "write",
      title: "Send a signed webhook",
      description: "POSTs {event, data, sent_at} as JSON to the connection's URL, signed with its secret.",
      input: z.object({ event: z.string().min(1).max(200), data: z.unknown() }),
      async run(client, args, ctx) {
        const timestamp = Math.floor(Date.now() / 1000).toString();
        const body = JSON.stringify({ event: args.event, data: args.data ?? null, sent_at: new Date().toISOString() });
        const signature = await hmacHex(client.config.signing_secret, `${timestamp}.${body}`);
        const response = await safeFetch(
          client.config.url,
          {
            method: "POST",
            headers: {
              "Content-Type": "application/json",
              "X-Hub-Timestamp": timestamp,
              "X-Hub-Signature": `sha256=${signature}`,
              "X-Hub-Delivery": base64url(crypto.getRandomValues(new Uint8Array(12))),
            },
            body,
          },
          { policy: ctx.policy, maxBytes: 64 * 1024, signal: ctx.signal },
        );
        if (response.status >= 400)
          throw new PlatformError(`The receiver answered ${response.status}.`, response.status, response.status === 401 ? "error" : undefined, {
            retryAfterSeconds: retryAfterSeconds(response.headers.get("Retry-After")),
          });
        return { delivered: true, status: response.status };
      },
    }),
  ],
});
