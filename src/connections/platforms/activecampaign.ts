import { z } from "@hono/zod-openapi";
import { OffsetCursor, nextOffsetCursor, offsetOf } from "./cursor";
import { text } from "./failures";
import { requestTool } from "./request-tool";
import { type PlatformFailure, baseUrlField, definePlatform } from "./types";

type ActiveCampaignConfig = { account: string; api_key: string; base_url?: string };

// ActiveCampaign's API v3 (developers.activecampaign.com/reference/overview): each account has its
// own host, https://<account>.api-us1.com/api/3 (Settings → Developer shows it), and the key goes
// in the Api-Token header (developers.activecampaign.com/reference/authentication). Ids are
// answered as strings, and lists page by limit/offset (…/reference/pagination).

/** An id as ActiveCampaign answers it ("113"). */
const Id = z.string().regex(/^\d{1,20}$/, "An ActiveCampaign id (digits), as the other tools answer it.");
const Name = z.string().max(255);
/** Custom field values: the field's id (GET /fields) and its value (dates YYYY-MM-DD, several options as ||a||b||). */
const FieldValues = z
  .array(z.object({ field: Id.describe("The custom field's id."), value: z.string().max(10_000) }))
  .max(100)
  .optional();
const ContactFields = {
  email: z.string().email().max(255),
  first_name: Name.optional(),
  last_name: Name.optional(),
  phone: z.string().max(50).optional(),
  field_values: FieldValues,
};

/**
 * ActiveCampaign's error bodies: a validation failure is 422 {errors: [{title, detail, code,
 * source: {pointer}}]} (code "duplicate" for an email already there), a missing object 404
 * {message: "No Result found for Subscriber with id 999"}, a refused key 403 {message: "You do not
 * have permission to access this resource"} (the examples of developers.activecampaign.com/reference,
 * e.g. "Create a contact" and "Retrieve a contact").
 */
function readActiveCampaignError(status: number, body: any): PlatformFailure | undefined {
  if (status < 400 || !body || typeof body !== "object") return undefined;
  // The key is the only credential, and ActiveCampaign answers a wrong one with 403.
  const authFailure = status === 401 || status === 403 ? "error" : null;
  if (Array.isArray(body.errors)) {
    const parts = body.errors
      .slice(0, 5)
      .map((e: any) => text(e?.detail, 300) ?? text(e?.title, 300))
      .filter(Boolean);
    return { message: parts.join("; "), code: text(body.errors[0]?.code, 100), authFailure };
  }
  const message = text(body.message, 400);
  return message ? { message, authFailure } : undefined;
}

const contact = (c: any) => ({
  id: String(c.id),
  email: c.email ?? null,
  first_name: c.firstName || null,
  last_name: c.lastName || null,
  phone: c.phone || null,
  created_at: c.cdate ?? null,
  updated_at: c.udate ?? null,
});
const fieldValues = (list: any) => (Array.isArray(list) ? list.map((v: any) => ({ field: String(v.field), value: v.value ?? null })) : []);

/** {contact: {email, firstName, lastName, phone, fieldValues}}: the body of POST /contacts and /contact/sync. */
const contactBody = (args: { email: string; first_name?: string; last_name?: string; phone?: string; field_values?: { field: string; value: string }[] }) => ({
  contact: { email: args.email, firstName: args.first_name, lastName: args.last_name, phone: args.phone, fieldValues: args.field_values },
});

export const activecampaign = definePlatform<ActiveCampaignConfig>({
  id: "activecampaign",
  name: "ActiveCampaign",
  description:
    "Contacts, tags, lists and deals in ActiveCampaign: sync a contact by email, tag it, subscribe it to a list, open a deal; contacts newest first for a New contact poll.",
  category: "marketing",
  authKind: "api_key",
  config: z.object({
    account: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/, "The part before .api-us1.com.")
      .meta({ description: "Your account's name: acme for https://acme.api-us1.com (Settings → Developer → URL)." }),
    api_key: z
      .string()
      .min(1)
      .max(200)
      .regex(/^\S+$/, "The key as shown, without spaces or line breaks.")
      .meta({ description: "Your API key (Settings → Developer → Key).", writeOnly: true, "x-secret": true }),
    base_url: baseUrlField,
  }),
  secretFields: ["api_key"],
  baseUrl: (config) => config.base_url ?? `https://${config.account}.api-us1.com/api/3`,
  authHeaders: (config) => ({ "Api-Token": config.api_key }),
  readError: readActiveCampaignError,
  async test(client) {
    const me = await client.request<{ user: { username: string; email?: string } }>({ method: "GET", path: "/users/me" });
    return `Connected as ${me.user.username}${me.user.email ? ` (${me.user.email})` : ""}.`;
  },
  polls: [{ title: "New contact", action: "find_contacts", arguments: { limit: 50 }, items_path: "contacts", id_path: "id" }],
  tools: [
    requestTool({
      action: "sync_contact",
      effect: "write",
      title: "Create or update an ActiveCampaign contact",
      description:
        "Creates the contact with this email, or updates the one there (POST /contact/sync): names, phone and custom field values; fields not given are kept.",
      input: z.object(ContactFields),
      method: "POST",
      path: "/contact/sync",
      body: contactBody,
      result: (a) => ({ ...contact(a.contact), field_values: fieldValues(a.fieldValues) }),
    }),
    requestTool({
      action: "create_contact",
      effect: "write",
      title: "Create an ActiveCampaign contact",
      description: "Creates a contact (POST /contacts); an email already there is ActiveCampaign's 422 duplicate (sync_contact updates it instead).",
      input: z.object(ContactFields),
      method: "POST",
      path: "/contacts",
      body: contactBody,
      result: (a) => ({ ...contact(a.contact), field_values: fieldValues(a.fieldValues) }),
    }),
    requestTool({
      action: "get_contact",
      effect: "read",
      title: "Get an ActiveCampaign contact",
      description: "Reads a contact and its custom field values (GET /contacts/{id}).",
      input: z.object({ contact_id: Id }),
      method: "GET",
      path: "/contacts/{contact_id}",
      result: (a) => ({ ...contact(a.contact), field_values: fieldValues(a.fieldValues) }),
    }),
    requestTool({
      action: "find_contacts",
      effect: "read",
      title: "Find ActiveCampaign contacts",
      description:
        "Lists contacts newest first (GET /contacts, orders[cdate]=DESC), optionally with this email, matching a search, on a list or with a tag. Contact ids are stable, so it drives a 'new contact' poll trigger (items_path: contacts, id_path: id).",
      input: z.object({
        email: z.string().email().max(255).optional(),
        search: z.string().min(1).max(255).optional().describe("Matches names, organization, phone or email."),
        list_id: Id.optional(),
        tag_id: Id.optional(),
        limit: z.number().int().min(1).max(100).default(20),
        cursor: OffsetCursor.optional(),
      }),
      method: "GET",
      path: "/contacts",
      query: (args) => ({
        email: args.email,
        search: args.search,
        listid: args.list_id,
        tagid: args.tag_id,
        "orders[cdate]": "DESC",
        limit: args.limit,
        offset: offsetOf(args.cursor),
      }),
      result: (a, args) => {
        const contacts = (a.contacts ?? []).map(contact);
        const total = Number(a.meta?.total);
        return {
          contacts,
          total: Number.isFinite(total) ? total : null,
          next_cursor: nextOffsetCursor(offsetOf(args.cursor), contacts.length, args.limit, Number.isFinite(total) ? total : undefined),
        };
      },
    }),
    requestTool({
      action: "add_tag_to_contact",
      effect: "write",
      title: "Tag an ActiveCampaign contact",
      description: "Adds an existing tag to a contact (POST /contactTags); tag ids are in Contacts → Manage Tags, or GET /tags.",
      input: z.object({ contact_id: Id, tag_id: Id }),
      method: "POST",
      path: "/contactTags",
      body: (args) => ({ contactTag: { contact: args.contact_id, tag: args.tag_id } }),
      result: (a) => ({
        id: String(a.contactTag.id),
        contact_id: String(a.contactTag.contact),
        tag_id: String(a.contactTag.tag),
        created_at: a.contactTag.cdate ?? null,
      }),
    }),
    requestTool({
      action: "subscribe_contact_to_list",
      effect: "write",
      title: "Subscribe an ActiveCampaign contact to a list",
      description:
        "Subscribes a contact to a list (POST /contactLists, status 1 active); list ids come from list_lists. It re-subscribes a contact who had unsubscribed, so only use it with their consent.",
      input: z.object({ contact_id: Id, list_id: Id }),
      method: "POST",
      path: "/contactLists",
      body: (args) => ({ contactList: { list: args.list_id, contact: args.contact_id, status: 1 } }),
      result: (a) => ({
        id: String(a.contactList.id),
        contact_id: String(a.contactList.contact),
        list_id: String(a.contactList.list),
        status: Number(a.contactList.status),
        subscribed_at: a.contactList.sdate ?? null,
      }),
    }),
    requestTool({
      action: "create_deal",
      effect: "write",
      title: "Create an ActiveCampaign deal",
      description:
        "Opens a deal (POST /deals) with a title and a value in cents (456.78 → 45678), for a contact, in a pipeline or a stage (the pipeline's first stage when only the pipeline is given), owned by a user.",
      input: z
        .object({
          title: z.string().min(1).max(255),
          value: z.number().int().min(0).max(2_147_483_647).describe("In cents: 45678 for 456.78."),
          currency: z
            .string()
            .regex(/^[A-Za-z]{3}$/, "A 3-letter currency code, e.g. usd.")
            .describe("Sent lowercased, as ActiveCampaign keeps it."),
          contact_id: Id.optional(),
          pipeline_id: Id.optional().describe("The pipeline (deal group); needed when stage_id is not given."),
          stage_id: Id.optional(),
          owner_id: Id.optional().describe("The user who owns the deal; needed unless the pipeline assigns owners itself."),
          description: z.string().max(10_000).optional(),
        })
        .refine((args) => Boolean(args.pipeline_id || args.stage_id), "Give the pipeline_id or the stage_id."),
      method: "POST",
      path: "/deals",
      body: (args) => ({
        deal: {
          title: args.title,
          value: args.value,
          currency: args.currency.toLowerCase(),
          contact: args.contact_id,
          group: args.pipeline_id,
          stage: args.stage_id,
          owner: args.owner_id,
          description: args.description,
        },
      }),
      result: (a) => ({
        id: String(a.deal.id),
        title: a.deal.title,
        value: Number(a.deal.value),
        currency: a.deal.currency,
        contact_id: a.deal.contact ? String(a.deal.contact) : null,
        pipeline_id: a.deal.group ? String(a.deal.group) : null,
        stage_id: a.deal.stage ? String(a.deal.stage) : null,
        owner_id: a.deal.owner ? String(a.deal.owner) : null,
        created_at: a.deal.cdate ?? null,
      }),
    }),
    requestTool({
      action: "list_lists",
      effect: "read",
      title: "List ActiveCampaign lists",
      description: "The account's lists with their ids, for subscribe_contact_to_list (GET /lists), a page at a time.",
      input: z.object({ limit: z.number().int().min(1).max(100).default(20), cursor: OffsetCursor.optional() }),
      method: "GET",
      path: "/lists",
      query: (args) => ({ limit: args.limit, offset: offsetOf(args.cursor) }),
      result: (a, args) => {
        const lists = (a.lists ?? []).map((l: any) => ({ id: String(l.id), name: l.name, string_id: l.stringid ?? null, created_at: l.cdate ?? null }));
        const total = Number(a.meta?.total);
        return { lists, next_cursor: nextOffsetCursor(offsetOf(args.cursor), lists.length, args.limit, Number.isFinite(total) ? total : undefined) };
      },
    }),
  ],
});
