import { z } from "@hono/zod-openapi";
import { text } from "./failures";
import { requestTool } from "./request-tool";
import { type PlatformFailure, baseUrlField, definePlatform, secret } from "./types";

type ZendeskConfig = { subdomain: string; email: string; api_token: string; base_url?: string };

// The Zendesk Support (Ticketing) API (developer.zendesk.com/api-reference/ticketing): JSON
// wrapped in its resource's name ({ticket: {...}}), https://<subdomain>.zendesk.com/api/v2, and an
// API token as Basic auth with the user "<email>/token".

const TicketId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const Status = z.enum(["new", "open", "pending", "hold", "solved", "closed"]);
const Priority = z.enum(["urgent", "high", "normal", "low"]);
const Tag = z.string().regex(/^[^\s,]{1,80}$/, "A tag has no spaces or commas.");
const Comment = z.string().min(1).max(65_000);
const CustomFields = z
  .array(
    z.object({
      id: z.number().int().min(1),
      value: z.union([z.string().max(10_000), z.number(), z.boolean(), z.array(z.string().max(200)).max(100), z.null()]),
    }),
  )
  .max(100)
  .optional();

/**
 * Zendesk's error bodies: {error: "RecordInvalid", description, details: {field: [{description}]}}
 * (422), {error: "RecordNotFound", description: "Not found"} (404), {error: "Couldn't
 * authenticate you"} (401) and {error: {title, message}} (403). A 429 carries Retry-After.
 */
function readZendeskError(status: number, body: any): PlatformFailure | undefined {
  if (status < 400 || !body || typeof body !== "object" || body.error === undefined) return undefined;
  const error = body.error;
  const details = body.details && typeof body.details === "object" ? Object.values(body.details).flat().slice(0, 5) : [];
  const said = typeof error === "object" ? [text(error?.title, 100), text(error?.message, 300)] : [text(body.description, 300) ?? text(error, 300)];
  return {
    message: [...said, ...details.map((d: any) => text(d?.description, 300))].filter(Boolean).join("; "),
    code: typeof error === "string" ? text(error, 100) : text(error?.title, 100),
    authFailure: status === 401 ? "error" : null,
  };
}

const ticket = (t: any) => ({
  id: t.id,
  subject: t.subject ?? null,
  description: t.description ?? null,
  status: t.status,
  priority: t.priority ?? null,
  type: t.type ?? null,
  requester_id: t.requester_id ?? null,
  assignee_id: t.assignee_id ?? null,
  tags: t.tags ?? [],
  external_id: t.external_id ?? null,
  created_at: t.created_at,
  updated_at: t.updated_at ?? null,
});

export const zendesk = definePlatform<ZendeskConfig>({
  id: "zendesk",
  name: "Zendesk Support",
  description: "Create, update, read and list Zendesk Support tickets (newest first, with a New ticket poll), with an agent's API token.",
  category: "support",
  authKind: "basic",
  config: z.object({
    subdomain: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "The part before .zendesk.com.")
      .meta({ description: "Your Zendesk subdomain: acme for acme.zendesk.com." }),
    email: z.string().email().max(320).meta({ description: "The email of the agent or admin the token acts as." }),
    api_token: secret("An API token (Admin Center → Apps and integrations → Zendesk API)."),
    base_url: baseUrlField,
  }),
  secretFields: ["api_token"],
  baseUrl: (config) => config.base_url ?? `https://${config.subdomain}.zendesk.com`,
  // developer.zendesk.com/api-reference/introduction/security-and-auth: "{email}/token:{api_token}".
  authHeaders: (config) => ({ Authorization: `Basic ${btoa(`${config.email}/token:${config.api_token}`)}` }),
  readError: readZendeskError,
  async test(client) {
    const me = await client.request<{ user: { id: number | null; name: string; role: string } }>({ method: "GET", path: "/api/v2/users/me.json" });
    // Zendesk answers an anonymous user (id null) for credentials it did not take.
    if (!me.user?.id) return "Zendesk did not sign in with these credentials (it answered an anonymous user).";
    return `Connected as ${me.user.name} (${me.user.role}).`;
  },
  polls: [{ title: "New ticket", action: "list_tickets", arguments: { limit: 50 }, items_path: "tickets", id_path: "id" }],
  tools: [
    requestTool({
      action: "create_ticket",
      effect: "write",
      title: "Create a Zendesk ticket",
      description:
        "Opens a ticket (POST /api/v2/tickets.json) with a subject and first comment, for a requester by email (created as an end user if new), with priority, type, tags and custom fields.",
      input: z.object({
        subject: z.string().min(1).max(300),
        comment: Comment.describe("The ticket's first comment: what the requester wrote."),
        requester_email: z.string().email().max(320).optional(),
        requester_name: z.string().max(200).optional(),
        priority: Priority.optional(),
        type: z.enum(["problem", "incident", "question", "task"]).optional(),
        status: Status.optional(),
        tags: z.array(Tag).max(100).optional(),
        external_id: z.string().max(255).optional(),
        custom_fields: CustomFields,
      }),
      method: "POST",
      path: "/api/v2/tickets.json",
      body: (args) => ({
        ticket: {
          subject: args.subject,
          comment: { body: args.comment },
          ...(args.requester_email ? { requester: { email: args.requester_email, ...(args.requester_name ? { name: args.requester_name } : {}) } } : {}),
          priority: args.priority,
          type: args.type,
          status: args.status,
          tags: args.tags,
          external_id: args.external_id,
          custom_fields: args.custom_fields,
        },
      }),
      result: (a) => ticket(a.ticket),
    }),
    requestTool({
      action: "update_ticket",
      effect: "write",
      title: "Update a Zendesk ticket",
      description:
        "Changes a ticket's status, priority, assignee or tags, and/or adds a comment: public (the requester is emailed) or an internal note (PUT /api/v2/tickets/{id}.json).",
      input: z.object({
        ticket_id: TicketId,
        status: Status.optional(),
        priority: Priority.optional(),
        assignee_id: z.number().int().min(1).optional(),
        tags: z.array(Tag).max(100).optional().describe("Replaces the ticket's tags."),
        comment: Comment.optional(),
        public: z.boolean().default(true).describe("false: an internal note only agents see."),
        custom_fields: CustomFields,
      }),
      method: "PUT",
      path: "/api/v2/tickets/{ticket_id}.json",
      body: (args) => ({
        ticket: {
          status: args.status,
          priority: args.priority,
          assignee_id: args.assignee_id,
          tags: args.tags,
          custom_fields: args.custom_fields,
          ...(args.comment ? { comment: { body: args.comment, public: args.public } } : {}),
        },
      }),
      result: (a) => ticket(a.ticket),
    }),
    requestTool({
      action: "get_ticket",
      effect: "read",
      title: "Get a Zendesk ticket",
      description: "Reads a ticket (GET /api/v2/tickets/{id}.json).",
      input: z.object({ ticket_id: TicketId }),
      method: "GET",
      path: "/api/v2/tickets/{ticket_id}.json",
      result: (a) => ticket(a.ticket),
    }),
    requestTool({
      action: "list_tickets",
      effect: "read",
      title: "List Zendesk tickets",
      description:
        "Lists tickets newest first (GET /api/v2/tickets.json with cursor pagination, sort=-id). Ticket ids only grow, so it drives a 'new ticket' poll trigger (items_path: tickets, id_path: id).",
      input: z.object({
        limit: z.number().int().min(1).max(100).default(25),
        cursor: z
          .string()
          .regex(/^[A-Za-z0-9_=+/-]{1,500}$/)
          .optional()
          .describe("The previous page's next_cursor."),
      }),
      method: "GET",
      path: "/api/v2/tickets.json",
      query: (args) => ({ "page[size]": args.limit, "page[after]": args.cursor, sort: "-id" }),
      result: (a) => ({ tickets: (a.tickets ?? []).map(ticket), next_cursor: a.meta?.has_more ? (a.meta.after_cursor ?? null) : null }),
    }),
  ],
});
