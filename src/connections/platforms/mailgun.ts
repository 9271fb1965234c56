import { z } from "@hono/zod-openapi";
import { text } from "./failures";
import { formBody } from "./form";
import { requestTool } from "./request-tool";
import { type PlatformFailure, baseUrlField, definePlatform, secret } from "./types";

type MailgunConfig = { api_key: string; domain: string; region?: "us" | "eu"; base_url?: string };

const Domain = z
  .string()
  .regex(/^[a-z0-9.-]{3,253}$/i, "A sending domain, e.g. mg.acme.com.")
  .meta({ description: "The sending domain, e.g. mg.acme.com." });
const Addresses = z.union([z.string().max(320), z.array(z.string().max(320)).min(1).max(1000)]);
const joined = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(", ") : value);
const ListAddress = z.string().email().max(320).describe("The mailing list's address, e.g. newsletter@mg.acme.com.");

/** The token of an events page: the last segment of a paging URL (base64 of Mailgun's own state). */
const PageToken = z.string().regex(/^[A-Za-z0-9_=+-]{1,2000}$/, "A next_cursor from the previous page.");

/**
 * The page token in one of the paging URLs Mailgun answers (https://api.mailgun.net/v3/<domain>/events/<token>).
 * Only the token is kept: the hub never follows a URL from an answer, it asks its own base URL.
 */
function pageToken(url: unknown): string | null {
  if (typeof url !== "string") return null;
  const token = /\/events\/([^/?#]+)$/.exec(url.split(/[?#]/)[0]!)?.[1];
  return token && PageToken.safeParse(token).success ? token : null;
}

/**
 * Mailgun's error reader: `{message}` (documentation.mailgun.com, "API Responses"); a wrong key is a
 * 401 whose body is the plain text "Forbidden".
 */
function readMailgunError(status: number, body: any): PlatformFailure | undefined {
  if (status < 400) return undefined;
  const message = typeof body === "string" ? text(body, 300) : text(body?.message, 400);
  return message ? { message, authFailure: status === 401 ? "error" : null } : undefined;
}

export const mailgun = definePlatform<MailgunConfig>({
  id: "mailgun",
  name: "Mailgun",
  description: "Send email through a Mailgun domain, read its delivery events and manage mailing list members.",
  category: "email",
  authKind: "basic",
  config: z.object({
    api_key: secret("A Mailgun private API key (or a domain sending key, which can only send)."),
    domain: Domain,
    region: z.enum(["us", "eu"]).default("us").meta({ description: "Where the domain lives: us (api.mailgun.net) or eu (api.eu.mailgun.net)." }),
    base_url: baseUrlField,
  }),
  secretFields: ["api_key"],
  baseUrl: (config) => config.base_url ?? (config.region === "eu" ? "https://api.eu.mailgun.net" : "https://api.mailgun.net"),
  // HTTP Basic with the user "api" and the key as the password.
  authHeaders: (config) => ({ Authorization: `Basic ${btoa(`api:${config.api_key}`)}` }),
  readError: readMailgunError,
  async test(client) {
    const domain = await client.request<{ domain: { name: string; state: string } }>({
      method: "GET",
      path: `/v3/domains/${encodeURIComponent(client.config.domain)}`,
    });
    return `Connected; ${domain.domain.name} is ${domain.domain.state}.`;
  },
  tools: [
    requestTool({
      action: "send_email",
      effect: "write",
      title: "Send an email with Mailgun",
      description:
        "Sends an email from the connection's domain (POST /v3/{domain}/messages, form-encoded): text and/or HTML, or a stored template with its variables; tags and custom variables travel with its events.",
      input: z.object({
        domain: Domain.optional().describe("Another of the account's domains; default: the connection's."),
        from: z.string().max(320),
        to: Addresses,
        cc: Addresses.optional(),
        bcc: Addresses.optional(),
        subject: z.string().min(1).max(998),
        text: z.string().max(5_000_000).optional(),
        html: z.string().max(5_000_000).optional(),
        template: z.string().max(100).optional(),
        template_variables: z.record(z.string().max(100), z.unknown()).optional(),
        tags: z.array(z.string().max(128)).max(3).optional(),
        variables: z.record(z.string().max(100), z.string().max(1000)).optional().describe("Custom variables (v:name), returned with the message's events."),
        reply_to: z.string().max(320).optional(),
      }),
      method: "POST",
      path: "/v3/{domain}/messages",
      encoding: "form",
      body: (args) => {
        const form = formBody({
          from: args.from,
          to: joined(args.to),
          cc: joined(args.cc),
          bcc: joined(args.bcc),
          subject: args.subject,
          text: args.text,
          html: args.html,
          template: args.template,
          "t:variables": args.template_variables ? JSON.stringify(args.template_variables) : undefined,
          "h:Reply-To": args.reply_to,
          ...Object.fromEntries(Object.entries(args.variables ?? {}).map(([name, value]) => [`v:${name}`, value])),
        });
        // Mailgun reads the field o:tag once per tag ("Tagging"); an indexed o:tag[0] is not a tag.
        for (const tag of args.tags ?? []) form.append("o:tag", tag);
        return form;
      },
      result: (a) => ({ id: a.id, message: a.message }),
    }),
    requestTool({
      action: "list_events",
      effect: "read",
      title: "List Mailgun events",
      description:
        "Lists the domain's delivery events newest first (GET /v3/{domain}/events): accepted, delivered, failed, opened, clicked, complained…, each with its tags; filter by event or recipient. For the next page pass next_cursor, Mailgun's page token (GET /v3/{domain}/events/{token}), which keeps the first page's filters and limit; next_cursor is null once a page comes back empty.",
      input: z.object({
        domain: Domain.optional(),
        event: z.string().max(50).optional(),
        recipient: z.string().max(320).optional(),
        limit: z.number().int().min(1).max(300).default(100),
        cursor: PageToken.optional().describe("The previous page's next_cursor; event, recipient and limit then come from it."),
      }),
      method: "GET",
      path: (args) => (args.cursor ? "/v3/{domain}/events/{cursor}" : "/v3/{domain}/events"),
      // A page token carries the query it was made for: Mailgun's next link has no parameters.
      query: (args) => (args.cursor ? {} : { limit: args.limit, event: args.event, recipient: args.recipient, ascending: "no" }),
      result: (a) => ({
        events: (a.items ?? []).map((e: any) => ({
          id: e.id,
          event: e.event,
          recipient: e.recipient ?? null,
          timestamp: e.timestamp,
          message_id: e.message?.headers?.["message-id"] ?? null,
          tags: Array.isArray(e.tags) ? e.tags : [],
          severity: e.severity ?? null,
          reason: e["delivery-status"]?.message || e.reason || null,
        })),
        // Mailgun links a next page even from the last one; it is the empty page that ends the list.
        next_cursor: (a.items?.length ?? 0) === 0 ? null : pageToken(a.paging?.next),
      }),
    }),
    requestTool({
      action: "add_list_member",
      effect: "write",
      title: "Add a Mailgun mailing list member",
      description: "Adds a member to a mailing list, or updates one with `upsert` (POST /v3/lists/{list}/members, form-encoded).",
      input: z.object({
        list: ListAddress,
        address: z.string().email().max(320),
        name: z.string().max(200).optional(),
        vars: z.record(z.string().max(100), z.unknown()).optional(),
        subscribed: z.boolean().default(true),
        upsert: z.boolean().default(true),
      }),
      method: "POST",
      path: "/v3/lists/{list}/members",
      encoding: "form",
      body: (args) => ({
        address: args.address,
        name: args.name,
        vars: args.vars ? JSON.stringify(args.vars) : undefined,
        subscribed: args.subscribed ? "yes" : "no",
        upsert: args.upsert ? "yes" : "no",
      }),
      result: (a) => ({ address: a.member?.address, name: a.member?.name ?? null, subscribed: a.member?.subscribed ?? null, message: a.message }),
    }),
  ],
});
