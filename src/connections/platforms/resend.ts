import { z } from "@hono/zod-openapi";
import { text } from "./failures";
import { PlatformError, type PlatformFailure, baseUrlField, definePlatform, platformTool, secret } from "./types";

type ResendConfig = { api_key: string; default_from?: string; base_url?: string };

const Addresses = z.union([z.string().email(), z.array(z.string().email()).min(1).max(50)]);

/** Names whose status misleads: a key still in flight passes (409); a spent quota does not (429). */
const RETRYABLE: Record<string, boolean> = { concurrent_idempotent_requests: true, daily_quota_exceeded: false, monthly_quota_exceeded: false };

/**
 * Resend's error reader: `{name, message, statusCode}` (resend.com/docs/api-reference/errors). A
 * missing or invalid key is the connection's fault (401 or 403); a sending-only key refused a
 * read (`restricted_api_key`, 401) is not.
 */
function readResendError(status: number, body: any): PlatformFailure | undefined {
  if (status < 400 || !body || typeof body !== "object" || typeof body.name !== "string") return undefined;
  const name = body.name.slice(0, 100);
  return {
    message: text(body.message, 400) ?? name,
    code: name,
    authFailure: name === "invalid_api_key" || name === "missing_api_key" ? "error" : name === "restricted_api_key" ? null : undefined,
    retryable: RETRYABLE[name],
  };
}

export const resend = definePlatform<ResendConfig>({
  id: "resend",
  name: "Resend (email)",
  description: "Send transactional and marketing email through Resend, and check a sent email's delivery status.",
  category: "email",
  authKind: "api_key",
  config: z.object({
    api_key: secret("A Resend API key (re_…)."),
    default_from: z.string().max(320).optional().meta({ description: 'Sender used when a call names none, e.g. "Acme <hello@acme.com>".' }),
    base_url: baseUrlField,
  }),
  secretFields: ["api_key"],
  defaultBaseUrl: "https://api.resend.com",
  authHeaders: (config) => ({ Authorization: `Bearer ${config.api_key}` }),
  readError: readResendError,
  // Resend documents Idempotency-Key on POST /emails (resend.com/docs/dashboard/emails/idempotency-keys):
  // a retried step's email is sent once.
  idempotencyHeader: () => "Idempotency-Key",
  async test(client) {
    try {
      const domains = await client.request<{ data: { name: string }[] }>({ method: "GET", path: "/domains" });
      return `Connected; ${domains.data.length} sending domain(s).`;
    } catch (error) {
      if (error instanceof PlatformError && error.code === "restricted_api_key") return "Connected with a sending-only key.";
      throw error;
    }
  },
  tools: [
    platformTool({
      action: "send_email",
      effect: "write",
      title: "Send an email",
      description: "Sends an email (POST /emails) with HTML and/or plain text, optional reply-to, cc, bcc and tags.",
      input: z.object({
        from: z.string().max(320).optional(),
        to: Addresses,
        subject: z.string().min(1).max(998),
        html: z.string().max(500_000).optional(),
        text: z.string().max(500_000).optional(),
        reply_to: z.string().email().optional(),
        cc: Addresses.optional(),
        bcc: Addresses.optional(),
        tags: z
          .array(z.object({ name: z.string().max(256), value: z.string().max(256) }))
          .max(10)
          .optional(),
      }),
      async run(client, args) {
        const from = args.from ?? client.config.default_from;
        if (!from) throw new PlatformError("Name a sender in `from`, or set default_from on the connection.", 400);
        if (!args.html && !args.text) throw new PlatformError("Give the email an html or a text body.", 400);
        const sent = await client.request<{ id: string }>({ method: "POST", path: "/emails", body: { ...args, from } });
        return { id: sent.id };
      },
    }),
    platformTool({
      action: "get_email",
      effect: "read",
      title: "Get a sent email",
      description: "Reads a sent email and its last delivery event (GET /emails/{id}).",
      input: z.object({ email_id: z.string().min(1).max(100) }),
      async run(client, args) {
        return client.request({ method: "GET", path: `/emails/${encodeURIComponent(args.email_id)}` });
      },
    }),
  ],
});
