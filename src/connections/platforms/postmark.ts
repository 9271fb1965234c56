import { z } from "@hono/zod-openapi";
import { text } from "./failures";
import { requestTool } from "./request-tool";
import { type PlatformFailure, baseUrlField, definePlatform, secret } from "./types";

type PostmarkConfig = { server_token: string; base_url?: string };

/** Postmark takes several recipients as one comma-separated string, at most 50. */
const Addresses = z.union([z.string().email().max(320), z.array(z.string().email().max(320)).min(1).max(50)]);
const joined = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(", ") : value);

/** Postmark's API error codes the connection is at fault for (postmarkapp.com/developer/api/overview#error-codes). */
const AUTH_CODES = new Set([10]);

/**
 * Postmark's error reader: `{ErrorCode, Message}` with a 422 for its own refusals (300 invalid
 * email request, 406 inactive recipient, 412 account pending…) and 401 for a missing or wrong token.
 */
function readPostmarkError(status: number, body: any): PlatformFailure | undefined {
  if (status < 400 || !body || typeof body !== "object" || typeof body.ErrorCode !== "number") return undefined;
  return {
    message: text(body.Message, 400) ?? `error ${body.ErrorCode}`,
    code: String(body.ErrorCode),
    authFailure: status === 401 || AUTH_CODES.has(body.ErrorCode) ? "error" : null,
  };
}

const sent = (a: any) => ({ message_id: a.MessageID, to: a.To, submitted_at: a.SubmittedAt });

export const postmark = definePlatform<PostmarkConfig>({
  id: "postmark",
  name: "Postmark",
  description: "Send transactional email, plain or from a template, through a Postmark server, and look up what was sent and what bounced.",
  category: "email",
  authKind: "api_key",
  config: z.object({
    server_token: secret("The Server API token, from the server's API Tokens tab."),
    base_url: baseUrlField,
  }),
  secretFields: ["server_token"],
  defaultBaseUrl: "https://api.postmarkapp.com",
  authHeaders: (config) => ({ "X-Postmark-Server-Token": config.server_token }),
  readError: readPostmarkError,
  async test(client) {
    const server = await client.request<{ Name: string }>({ method: "GET", path: "/server" });
    return `Connected to the Postmark server ${server.Name}.`;
  },
  tools: [
    requestTool({
      action: "send_email",
      effect: "write",
      title: "Send an email with Postmark",
      description: "Sends one email (POST /email) with an HTML and/or text body, a tag and metadata; the result has Postmark's MessageID.",
      input: z.object({
        from: z.string().max(320),
        to: Addresses,
        cc: Addresses.optional(),
        subject: z.string().min(1).max(2000),
        html: z.string().max(5_000_000).optional(),
        text: z.string().max(5_000_000).optional(),
        reply_to: z.string().email().optional(),
        tag: z.string().max(1000).optional(),
        metadata: z.record(z.string().max(100), z.string().max(1000)).optional(),
        message_stream: z.string().max(100).optional(),
      }),
      method: "POST",
      path: "/email",
      body: (args) => ({
        From: args.from,
        To: joined(args.to),
        Cc: joined(args.cc),
        Subject: args.subject,
        HtmlBody: args.html,
        TextBody: args.text,
        ReplyTo: args.reply_to,
        Tag: args.tag,
        Metadata: args.metadata,
        MessageStream: args.message_stream ?? "outbound",
      }),
      result: sent,
    }),
    requestTool({
      action: "send_template_email",
      effect: "write",
      title: "Send a Postmark template email",
      description: "Sends an email from a server template, by id or alias, filled with `model` (POST /email/withTemplate).",
      input: z
        .object({
          from: z.string().max(320),
          to: Addresses,
          template_id: z.number().int().positive().optional(),
          template_alias: z.string().max(100).optional(),
          model: z.record(z.string().max(100), z.unknown()).default({}),
          tag: z.string().max(1000).optional(),
          message_stream: z.string().max(100).optional(),
        })
        .refine((args) => Boolean(args.template_id) !== Boolean(args.template_alias), "Give either template_id or template_alias."),
      method: "POST",
      path: "/email/withTemplate",
      body: (args) => ({
        From: args.from,
        To: joined(args.to),
        TemplateId: args.template_id,
        TemplateAlias: args.template_alias,
        TemplateModel: args.model,
        Tag: args.tag,
        MessageStream: args.message_stream ?? "outbound",
      }),
      result: sent,
    }),
    requestTool({
      action: "list_outbound_messages",
      effect: "read",
      title: "Search sent Postmark emails",
      description: "Lists sent messages newest first (GET /messages/outbound), optionally to one recipient or with one tag; pass next_cursor for more.",
      input: z.object({
        recipient: z.string().email().optional(),
        tag: z.string().max(1000).optional(),
        limit: z.number().int().min(1).max(500).default(50),
        cursor: z
          .string()
          .regex(/^\d{1,5}$/)
          .optional()
          .describe("The previous page's next_cursor."),
      }),
      method: "GET",
      path: "/messages/outbound",
      query: (args) => ({ count: args.limit, offset: Number(args.cursor ?? 0), recipient: args.recipient, tag: args.tag }),
      result: (a, args) => {
        const offset = Number(args.cursor ?? 0) + (a.Messages?.length ?? 0);
        return {
          messages: (a.Messages ?? []).map((m: any) => ({
            message_id: m.MessageID,
            to: (m.To ?? []).map((r: any) => r.Email),
            subject: m.Subject,
            status: m.Status,
            tag: m.Tag || null,
            received_at: m.ReceivedAt,
          })),
          // Postmark pages by offset; it refuses offsets past 10,000.
          next_cursor: offset < (a.TotalCount ?? 0) && offset <= 10_000 - args.limit ? String(offset) : null,
        };
      },
    }),
    requestTool({
      action: "list_bounces",
      effect: "read",
      title: "List Postmark bounces",
      description: "Lists bounces newest first (GET /bounces), optionally of one type (HardBounce, SpamComplaint…) or address.",
      input: z.object({
        type: z.string().max(50).optional(),
        email: z.string().email().optional(),
        limit: z.number().int().min(1).max(500).default(50),
        cursor: z
          .string()
          .regex(/^\d{1,5}$/)
          .optional(),
      }),
      method: "GET",
      path: "/bounces",
      query: (args) => ({ count: args.limit, offset: Number(args.cursor ?? 0), type: args.type, emailFilter: args.email }),
      result: (a, args) => {
        const offset = Number(args.cursor ?? 0) + (a.Bounces?.length ?? 0);
        return {
          bounces: (a.Bounces ?? []).map((b: any) => ({
            id: b.ID,
            type: b.Type,
            email: b.Email,
            description: b.Description ?? null,
            bounced_at: b.BouncedAt,
            inactive: b.Inactive ?? false,
          })),
          next_cursor: offset < (a.TotalCount ?? 0) && offset <= 10_000 - args.limit ? String(offset) : null,
        };
      },
    }),
  ],
});
