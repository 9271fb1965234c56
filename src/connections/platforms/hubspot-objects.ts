import { z } from "@hono/zod-openapi";
import { requestTool } from "./request-tool";

// HubSpot's deals, companies, notes and lists (developers.hubspot.com/docs/api/crm/…), declared:
// each is one request. Associations use HubSpot's defined type ids
// (developers.hubspot.com/docs/api/crm/associations: deal→contact 3, deal→company 5,
// note→contact 202, note→deal 214, company→contact 280).

const ObjectId = z.string().regex(/^\d{1,20}$/, "A HubSpot record id.");
const Properties = z
  .record(z.string().max(100), z.union([z.string().max(65_536), z.number(), z.boolean()]))
  .refine((values) => Object.keys(values).length <= 200, "At most 200 properties.");

const associate = (id: string | undefined, typeId: number) =>
  id ? [{ to: { id }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: typeId }] }] : [];

const record = (r: any) => ({ id: r.id, properties: r.properties ?? {}, created_at: r.createdAt ?? null });
const page = (key: string) => (a: any) => ({ [key]: (a.results ?? []).map(record), next_cursor: a.paging?.next?.after ?? null });

export const hubspotObjectTools = [
  requestTool({
    action: "list_new_contacts",
    effect: "read",
    title: "List the newest HubSpot contacts",
    description:
      "Lists contacts newest first (POST /crm/v3/objects/contacts/search, sorted by createdate descending); ids are stable, so it drives a 'new contact' poll trigger (items_path: contacts, id_path: id).",
    input: z.object({
      limit: z.number().int().min(1).max(100).default(20),
      cursor: z
        .string()
        .regex(/^\d{1,10}$/)
        .optional(),
      properties: z
        .array(z.string().regex(/^[A-Za-z0-9_]{1,100}$/))
        .max(50)
        .default(["email", "firstname", "lastname", "company", "createdate"]),
    }),
    method: "POST",
    path: "/crm/v3/objects/contacts/search",
    body: (args) => ({ sorts: [{ propertyName: "createdate", direction: "DESCENDING" }], properties: args.properties, limit: args.limit, after: args.cursor }),
    result: page("contacts"),
  }),
  requestTool({
    action: "create_deal",
    effect: "write",
    title: "Create a HubSpot deal",
    description: "Creates a deal (POST /crm/v3/objects/deals) in a pipeline stage, optionally associated with a contact and a company.",
    input: z.object({
      dealname: z.string().min(1).max(500),
      amount: z.number().min(0).optional(),
      dealstage: z.string().max(100).default("appointmentscheduled"),
      pipeline: z.string().max(100).default("default"),
      closedate: z.string().datetime().optional(),
      properties: Properties.optional(),
      contact_id: ObjectId.optional(),
      company_id: ObjectId.optional(),
    }),
    method: "POST",
    path: "/crm/v3/objects/deals",
    body: (args) => ({
      properties: {
        ...args.properties,
        dealname: args.dealname,
        amount: args.amount,
        dealstage: args.dealstage,
        pipeline: args.pipeline,
        closedate: args.closedate,
      },
      associations: [...associate(args.contact_id, 3), ...associate(args.company_id, 5)],
    }),
    result: record,
  }),
  requestTool({
    action: "update_deal",
    effect: "write",
    title: "Update a HubSpot deal",
    description: "Updates a deal's properties, e.g. moves it to another stage (PATCH /crm/v3/objects/deals/{id}).",
    input: z.object({ deal_id: ObjectId, properties: Properties }),
    method: "PATCH",
    path: "/crm/v3/objects/deals/{deal_id}",
    result: record,
  }),
  requestTool({
    action: "list_deals",
    effect: "read",
    title: "List HubSpot deals",
    description: "Lists deals a page at a time (GET /crm/v3/objects/deals); pass next_cursor for the next page.",
    input: z.object({
      limit: z.number().int().min(1).max(100).default(20),
      cursor: z
        .string()
        .regex(/^\d{1,10}$/)
        .optional(),
    }),
    method: "GET",
    path: "/crm/v3/objects/deals",
    query: (args) => ({ limit: args.limit, after: args.cursor, properties: "dealname,amount,dealstage,pipeline,closedate", archived: false }),
    result: page("deals"),
  }),
  requestTool({
    action: "create_company",
    effect: "write",
    title: "Create a HubSpot company",
    description: "Creates a company (POST /crm/v3/objects/companies), optionally associated with a contact.",
    input: z.object({
      name: z.string().min(1).max(500),
      domain: z.string().max(253).optional(),
      properties: Properties.optional(),
      contact_id: ObjectId.optional(),
    }),
    method: "POST",
    path: "/crm/v3/objects/companies",
    body: (args) => ({ properties: { ...args.properties, name: args.name, domain: args.domain }, associations: associate(args.contact_id, 280) }),
    result: record,
  }),
  requestTool({
    action: "create_note",
    effect: "write",
    title: "Add a note in HubSpot",
    description: "Adds a note to a contact's or a deal's timeline (POST /crm/v3/objects/notes, associated with it).",
    input: z
      .object({ body: z.string().min(1).max(65_536), contact_id: ObjectId.optional(), deal_id: ObjectId.optional() })
      .refine((args) => Boolean(args.contact_id || args.deal_id), "Give the contact_id or the deal_id the note is about."),
    method: "POST",
    path: "/crm/v3/objects/notes",
    body: (args) => ({
      properties: { hs_note_body: args.body, hs_timestamp: new Date().toISOString() },
      associations: [...associate(args.contact_id, 202), ...associate(args.deal_id, 214)],
    }),
    result: record,
  }),
  requestTool({
    action: "add_to_list",
    effect: "write",
    title: "Add contacts to a HubSpot list",
    description: "Adds records to a static (MANUAL) list (PUT /crm/v3/lists/{listId}/memberships/add); says which were added and which were missing.",
    input: z.object({ list_id: ObjectId, record_ids: z.array(ObjectId).min(1).max(100_000) }),
    method: "PUT",
    path: "/crm/v3/lists/{list_id}/memberships/add",
    body: (args) => args.record_ids,
    result: (a) => ({ added: a.recordIdsAdded ?? [], missing: a.recordIdsMissing ?? [] }),
  }),
];
