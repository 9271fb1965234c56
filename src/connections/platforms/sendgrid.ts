import { z } from "@hono/zod-openapi";
import { text } from "./failures";
import { requestTool } from "./request-tool";
import { PlatformError, type PlatformFailure, baseUrlField, definePlatform, platformTool, secret } from "./types";

type SendGridConfig = { api_key: string; default_from?: string; base_url?: string };

const Recipient = z.object({ email: z.string().email().max(320), name: z.string().max(200).optional() });
const Recipients = z.array(Recipient).min(1).max(1000);

/**
 * SendGrid's error reader: `{errors: [{message, field?, help?}]}` (docs.sendgrid.com/api-reference,
 * "Errors"); each field's message is kept. A refused key is a 401 (or a 403 for a key without the
 * scope, which is not the connection's fault as a whole).
 */
function readSendGridError(status: number, body: any): PlatformFailure | undefined {
  if (status < 400 || !Array.isArray(body?.errors)) return undefined;
  const messages = body.errors.slice(0, 5).map((e: any) => [text(e?.field, 100), text(e?.message, 300)].filter(Boolean).join(": "));
  return { message: messages.filter(Boolean).join("; "), authFailure: status === 401 ? "error" : null };
}

export const sendgrid = definePlatform<SendGridConfig>({
  id: "sendgrid",
  name: "SendGrid",
  description: "Send email (plain, HTML or a dynamic template) and add marketing contacts to lists with Twilio SendGrid.",
  category: "email",
  authKind: "api_key",
  config: z.object({
    api_key: secret("A SendGrid API key (SG.…) with Mail Send and Marketing scopes."),
    default_from: z.string().email().max(320).optional().meta({ description: "A verified sender address used when a call names none." }),
    base_url: baseUrlField,
  }),
  secretFields: ["api_key"],
  defaultBaseUrl: "https://api.sendgrid.com",
  authHeaders: (config) => ({ Authorization: `Bearer ${config.api_key}` }),
  readError: readSendGridError,
  async test(client) {
    const scopes = await client.request<{ scopes: string[] }>({ method: "GET", path: "/v3/scopes" });
    return `Connected; the key has ${scopes.scopes.length} scope(s)${scopes.scopes.includes("mail.send") ? ", mail.send among them" : ""}.`;
  },
  tools: [
    platformTool({
      action: "send_email",
      effect: "write",
      title: "Send an email with SendGrid",
      description:
        "Sends an email (POST /v3/mail/send): text and/or HTML content, or a dynamic template with its data. SendGrid accepts it for delivery (202) without an id in the body.",
      input: z.object({
        from: z.string().email().max(320).optional(),
        from_name: z.string().max(200).optional(),
        to: Recipients,
        cc: z.array(Recipient).max(1000).optional(),
        subject: z.string().max(998).optional(),
        text: z.string().max(1_000_000).optional(),
        html: z.string().max(1_000_000).optional(),
        template_id: z
          .string()
          .regex(/^d-[0-9a-f]{32}$/)
          .optional(),
        template_data: z.record(z.string().max(100), z.unknown()).optional(),
        categories: z.array(z.string().max(255)).max(10).optional(),
      }),
      async run(client, args) {
        const from = args.from ?? client.config.default_from;
        if (!from) throw new PlatformError("Name a sender in `from`, or set default_from on the connection.", 400);
        if (!args.template_id && !args.text && !args.html) throw new PlatformError("Give the email text, html or a template_id.", 400);
        if (!args.template_id && !args.subject) throw new PlatformError("Give the email a subject (a template brings its own).", 400);
        const content = [...(args.text ? [{ type: "text/plain", value: args.text }] : []), ...(args.html ? [{ type: "text/html", value: args.html }] : [])];
        await client.request({
          method: "POST",
          path: "/v3/mail/send",
          body: {
            personalizations: [
              { to: args.to, ...(args.cc ? { cc: args.cc } : {}), ...(args.template_data ? { dynamic_template_data: args.template_data } : {}) },
            ],
            from: { email: from, ...(args.from_name ? { name: args.from_name } : {}) },
            ...(args.subject ? { subject: args.subject } : {}),
            ...(content.length ? { content } : {}),
            ...(args.template_id ? { template_id: args.template_id } : {}),
            ...(args.categories ? { categories: args.categories } : {}),
          },
        });
        return { accepted: true, recipients: args.to.length };
      },
    }),
    requestTool({
      action: "add_contacts",
      effect: "write",
      title: "Add or update SendGrid contacts",
      description:
        "Adds or updates marketing contacts by email, optionally into lists (PUT /v3/marketing/contacts). SendGrid processes them in the background and answers a job id.",
      input: z.object({
        list_ids: z.array(z.string().uuid()).max(100).optional(),
        contacts: z
          .array(
            z.object({
              email: z.string().email().max(254),
              first_name: z.string().max(50).optional(),
              last_name: z.string().max(50).optional(),
              city: z.string().max(60).optional(),
              country: z.string().max(50).optional(),
              custom_fields: z.record(z.string().max(100), z.union([z.string().max(1000), z.number()])).optional(),
            }),
          )
          .min(1)
          .max(1000),
      }),
      method: "PUT",
      path: "/v3/marketing/contacts",
      result: (a) => ({ job_id: a.job_id }),
    }),
    requestTool({
      action: "list_lists",
      effect: "read",
      title: "List SendGrid contact lists",
      description: "Lists marketing contact lists with their sizes (GET /v3/marketing/lists); pass next_cursor for the next page.",
      input: z.object({ limit: z.number().int().min(1).max(1000).default(100), cursor: z.string().max(500).optional() }),
      method: "GET",
      path: "/v3/marketing/lists",
      query: (args) => ({ page_size: args.limit, page_token: args.cursor }),
      result: (a) => ({
        lists: (a.result ?? []).map((l: any) => ({ id: l.id, name: l.name, contact_count: l.contact_count ?? 0 })),
        // SendGrid gives the next page as a URL; its page_token is the cursor.
        next_cursor: a._metadata?.next ? (new URL(a._metadata.next, "https://api.sendgrid.com").searchParams.get("page_token") ?? null) : null,
      }),
    }),
    platformTool({
      action: "find_contacts",
      effect: "read",
      title: "Find SendGrid contacts by email",
      description: "Looks up marketing contacts by email (POST /v3/marketing/contacts/search/emails); emails without a contact are listed in not_found.",
      input: z.object({ emails: z.array(z.string().email().max(254)).min(1).max(100) }),
      async run(client, args) {
        let found: Record<string, { contact?: any }> = {};
        try {
          const answer = await client.request<{ result?: typeof found }>({
            method: "POST",
            path: "/v3/marketing/contacts/search/emails",
            body: { emails: args.emails },
          });
          found = answer.result ?? {};
        } catch (error) {
          // SendGrid answers 404 when none of the emails has a contact: an empty result, not a failure.
          if (!(error instanceof PlatformError) || error.status !== 404) throw error;
        }
        return {
          contacts: Object.values(found)
            .map((r) => r?.contact)
            .filter(Boolean)
            .map((c) => ({ id: c.id, email: c.email, first_name: c.first_name ?? null, last_name: c.last_name ?? null, list_ids: c.list_ids ?? [] })),
          not_found: args.emails.filter((email) => !found[email]?.contact),
        };
      },
    }),
  ],
});
