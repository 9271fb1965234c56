import { z } from "@hono/zod-openapi";
import { text } from "./failures";
import { requestTool } from "./request-tool";
import { PlatformError, type PlatformFailure, baseUrlField, definePlatform, platformTool, secret } from "./types";

type IntercomConfig = { access_token: string; region?: "us" | "eu" | "au"; default_admin_id?: string; base_url?: string };

// The Intercom REST API (developers.intercom.com/docs/references/rest-api): a workspace's access
// token as a bearer, Intercom-Version pinned so answers keep their shape, and regional hosts.
const HOSTS = { us: "https://api.intercom.io", eu: "https://api.eu.intercom.io", au: "https://api.au.intercom.io" } as const;
const VERSION = "2.11";

const ContactId = z.string().regex(/^[A-Za-z0-9]{1,64}$/, "An Intercom contact id.");
const AdminId = z.string().regex(/^\d{1,20}$/, "An admin's numeric id (list_admins gives them).");
const CustomAttributes = z.record(z.string().max(190), z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()])).optional();

/**
 * Intercom's error body: {type: "error.list", request_id, errors: [{code, message, field?}]}
 * (unauthorized, not_found, conflict for a duplicate contact, parameter_invalid). A 401 is the token's.
 */
function readIntercomError(status: number, body: any): PlatformFailure | undefined {
  if (status < 400 || body?.type !== "error.list" || !Array.isArray(body.errors)) return undefined;
  const first = body.errors[0];
  return {
    message: body.errors
      .slice(0, 5)
      .map((e: any) => text(e?.message, 300) ?? text(e?.code, 100))
      .filter(Boolean)
      .join("; "),
    code: text(first?.code, 100),
    authFailure: status === 401 ? "error" : null,
  };
}

const contact = (c: any) => ({
  id: c.id,
  role: c.role,
  email: c.email ?? null,
  phone: c.phone ?? null,
  name: c.name ?? null,
  external_id: c.external_id ?? null,
  custom_attributes: c.custom_attributes ?? {},
  created_at: c.created_at ?? null,
  updated_at: c.updated_at ?? null,
});

const ContactFields = {
  email: z.string().email().max(320).optional(),
  phone: z.string().max(50).optional(),
  name: z.string().max(255).optional(),
  external_id: z.string().max(255).optional().describe("Your own id for the person (user_id in Intercom's Messenger)."),
  custom_attributes: CustomAttributes,
};

export const intercom = definePlatform<IntercomConfig>({
  id: "intercom",
  name: "Intercom",
  description: "Create, update and find Intercom contacts (users and leads), and send them in-app or email messages from an admin.",
  category: "support",
  authKind: "bearer_token",
  config: z.object({
    access_token: secret("An access token of your Intercom app (Developer Hub → your app → Authentication)."),
    region: z.enum(["us", "eu", "au"]).default("us").optional().meta({ description: "Where the workspace's data is hosted." }),
    default_admin_id: AdminId.optional().meta({ description: "The admin messages come from when a call names none." }),
    base_url: baseUrlField,
  }),
  secretFields: ["access_token"],
  baseUrl: (config) => config.base_url ?? HOSTS[config.region ?? "us"],
  authHeaders: (config) => ({ Authorization: `Bearer ${config.access_token}`, "Intercom-Version": VERSION }),
  readError: readIntercomError,
  async test(client) {
    const me = await client.request<{ name: string; app?: { name?: string } }>({ method: "GET", path: "/me" });
    return `Connected as ${me.name}${me.app?.name ? ` (${me.app.name})` : ""}.`;
  },
  tools: [
    requestTool({
      action: "create_contact",
      effect: "write",
      title: "Create an Intercom contact",
      description:
        "Creates a user or a lead (POST /contacts) with an email, phone, name, your external id and custom attributes; a second contact with the same email is Intercom's 409.",
      input: z.object({ role: z.enum(["user", "lead"]).default("user"), ...ContactFields }),
      method: "POST",
      path: "/contacts",
      result: contact,
    }),
    requestTool({
      action: "update_contact",
      effect: "write",
      title: "Update an Intercom contact",
      description: "Changes a contact's email, phone, name, external id or custom attributes (PUT /contacts/{id}); attributes not given are kept.",
      input: z.object({ contact_id: ContactId, ...ContactFields }),
      method: "PUT",
      path: "/contacts/{contact_id}",
      result: contact,
    }),
    requestTool({
      action: "find_contacts",
      effect: "read",
      title: "Find Intercom contacts by email",
      description:
        "Searches contacts whose email is exactly this one (POST /contacts/search); users and leads alike (a lead may share a user's email), a page at a time: pass next_cursor as cursor (null: no more).",
      input: z.object({
        email: z.string().email().max(320),
        limit: z.number().int().min(1).max(150).default(10),
        cursor: z
          .string()
          .regex(/^[A-Za-z0-9+/=_-]{1,500}$/, "Pass the next_cursor of the previous page as it was given.")
          .optional()
          .describe("The previous page's next_cursor."),
      }),
      method: "POST",
      path: "/contacts/search",
      // Search pages by starting_after in, pages.next.starting_after out
      // (developers.intercom.com/docs/references/rest-api/api.intercom.io/contacts/searchcontacts).
      body: (args) => ({
        query: { field: "email", operator: "=", value: args.email },
        pagination: { per_page: args.limit, ...(args.cursor ? { starting_after: args.cursor } : {}) },
      }),
      result: (a) => ({ contacts: (a.data ?? []).map(contact), total: a.total_count ?? 0, next_cursor: a.pages?.next?.starting_after ?? null }),
    }),
    platformTool({
      action: "send_message",
      effect: "write",
      title: "Send an Intercom message",
      description:
        "Sends a contact a message from an admin (POST /messages): in-app, or an email with a subject (plain or personal template). No conversation exists until the contact replies.",
      input: z.object({
        contact_id: ContactId,
        contact_role: z.enum(["user", "lead"]).default("user"),
        message_type: z.enum(["inapp", "email"]).default("inapp"),
        subject: z.string().max(255).optional(),
        body: z.string().min(1).max(50_000).describe("Plain text or HTML."),
        template: z.enum(["plain", "personal"]).default("plain"),
        from_admin_id: AdminId.optional().describe("Default: the connection's default_admin_id."),
      }),
      async run(client, args) {
        const admin = args.from_admin_id ?? client.config.default_admin_id;
        if (!admin) throw new PlatformError("Name the sending admin in `from_admin_id`, or set default_admin_id on the connection.", 400);
        if (args.message_type === "email" && !args.subject) throw new PlatformError("An email message needs a subject.", 400);
        const sent = await client.request({
          method: "POST",
          path: "/messages",
          body: {
            message_type: args.message_type,
            ...(args.message_type === "email" ? { subject: args.subject, template: args.template } : {}),
            body: args.body,
            from: { type: "admin", id: Number(admin) },
            to: { type: args.contact_role, id: args.contact_id },
          },
        });
        return { id: sent.id, message_type: sent.message_type, created_at: sent.created_at, conversation_id: sent.conversation_id ?? null };
      },
    }),
    requestTool({
      action: "list_admins",
      effect: "read",
      title: "List Intercom admins",
      description: "The workspace's admins (teammates) with their ids, for send_message's from_admin_id (GET /admins).",
      input: z.object({}),
      method: "GET",
      path: "/admins",
      result: (a) => ({ admins: (a.admins ?? []).map((x: any) => ({ id: x.id, name: x.name, email: x.email ?? null, away: x.away_mode_enabled ?? false })) }),
    }),
  ],
});
