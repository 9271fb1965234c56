import { z } from "@hono/zod-openapi";
import { text } from "./failures";
import { requestTool } from "./request-tool";
import { type PlatformFailure, baseUrlField, definePlatform, secret } from "./types";

type PipedriveConfig = { company_domain: string; api_token: string; base_url?: string };

// Pipedrive's API v2 (developers.pipedrive.com/docs/api/v2): https://<company>.pipedrive.com/api/v2,
// the API token in the x-api-token header (pipedrive.readme.io/docs/core-api-concepts-authentication),
// {success, data, additional_data: {next_cursor}} answers, lists paged by cursor.

const Id = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const Emails = z.array(z.string().email().max(320)).max(20);
const Phones = z.array(z.string().max(50)).max(20);
const Currency = z.string().regex(/^[A-Z]{3}$/, "A 3-letter currency code, e.g. EUR.");
const Cursor = z
  .string()
  .regex(/^[A-Za-z0-9_=+/-]{1,500}$/)
  .optional()
  .describe("The previous page's next_cursor.");

/**
 * Pipedrive's error body: {success: false, error, error_info?, code?} ("Deal not found",
 * "unauthorized access", a field's validation message). A 401 is the token's fault; a 429 passes.
 */
function readPipedriveError(status: number, body: any): PlatformFailure | undefined {
  if (status < 400 || !body || typeof body !== "object" || body.success !== false) return undefined;
  return { message: text(body.error, 400) ?? "", code: text(body.code, 100), authFailure: status === 401 ? "error" : null };
}

/** Emails and phones go as [{value, primary}], the first one primary. */
const labelled = (values: string[] | undefined) => values?.map((value, i) => ({ value, primary: i === 0, label: "work" }));
const values = (list: any) => (Array.isArray(list) ? list.map((e: any) => (typeof e === "string" ? e : e?.value)).filter(Boolean) : []);

const person = (p: any) => ({
  id: p.id,
  name: p.name,
  emails: values(p.emails),
  phones: values(p.phones),
  org_id: p.org_id ?? null,
  owner_id: p.owner_id ?? null,
  add_time: p.add_time ?? null,
});
const deal = (d: any) => ({
  id: d.id,
  title: d.title,
  value: d.value ?? null,
  currency: d.currency ?? null,
  status: d.status,
  stage_id: d.stage_id ?? null,
  pipeline_id: d.pipeline_id ?? null,
  person_id: d.person_id ?? null,
  org_id: d.org_id ?? null,
  expected_close_date: d.expected_close_date ?? null,
  add_time: d.add_time ?? null,
});

const PersonFields = {
  name: z.string().min(1).max(255),
  emails: Emails.optional(),
  phones: Phones.optional(),
  org_id: Id.optional(),
  owner_id: Id.optional(),
};
const personBody = (args: { name?: string; emails?: string[]; phones?: string[]; org_id?: number; owner_id?: number }) => ({
  name: args.name,
  emails: labelled(args.emails),
  phones: labelled(args.phones),
  org_id: args.org_id,
  owner_id: args.owner_id,
});
const DealFields = {
  value: z.number().min(0).optional(),
  currency: Currency.optional(),
  person_id: Id.optional(),
  org_id: Id.optional(),
  stage_id: Id.optional(),
  status: z.enum(["open", "won", "lost"]).optional(),
  expected_close_date: z.string().date().optional(),
};

export const pipedrive = definePlatform<PipedriveConfig>({
  id: "pipedrive",
  name: "Pipedrive",
  description: "People and deals in Pipedrive: create, update and find persons; create and move deals; list deals newest first with a New deal poll.",
  category: "crm",
  authKind: "api_key",
  config: z.object({
    company_domain: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "The part before .pipedrive.com.")
      .meta({ description: "Your company's Pipedrive subdomain: acme for acme.pipedrive.com." }),
    api_token: secret("Your personal API token (Personal preferences → API)."),
    base_url: baseUrlField,
  }),
  secretFields: ["api_token"],
  baseUrl: (config) => config.base_url ?? `https://${config.company_domain}.pipedrive.com`,
  authHeaders: (config) => ({ "x-api-token": config.api_token }),
  readError: readPipedriveError,
  async test(client) {
    const me = await client.request<{ data: { name: string; company_name?: string } }>({ method: "GET", path: "/api/v1/users/me" });
    return `Connected as ${me.data.name}${me.data.company_name ? ` (${me.data.company_name})` : ""}.`;
  },
  polls: [{ title: "New deal", action: "list_deals", arguments: { limit: 50 }, items_path: "deals", id_path: "id" }],
  tools: [
    requestTool({
      action: "create_person",
      effect: "write",
      title: "Create a Pipedrive person",
      description: "Adds a person (POST /api/v2/persons) with a name, emails and phones (the first of each primary), an organization and an owner.",
      input: z.object(PersonFields),
      method: "POST",
      path: "/api/v2/persons",
      body: personBody,
      result: (a) => person(a.data),
    }),
    requestTool({
      action: "update_person",
      effect: "write",
      title: "Update a Pipedrive person",
      description: "Changes a person's name, emails, phones, organization or owner (PATCH /api/v2/persons/{id}); a list given replaces the one there.",
      input: z.object({ person_id: Id, ...PersonFields, name: PersonFields.name.optional() }),
      method: "PATCH",
      path: "/api/v2/persons/{person_id}",
      body: personBody,
      result: (a) => person(a.data),
    }),
    requestTool({
      action: "find_persons",
      effect: "read",
      title: "Find Pipedrive persons",
      description: "Searches persons by email, name or phone (GET /api/v2/persons/search); exact_match for whole values only.",
      input: z.object({
        term: z.string().min(2).max(200),
        fields: z.enum(["email", "name", "phone"]).optional(),
        exact_match: z.boolean().default(true),
        limit: z.number().int().min(1).max(100).default(10),
        cursor: Cursor,
      }),
      method: "GET",
      path: "/api/v2/persons/search",
      query: (args) => ({ term: args.term, fields: args.fields, exact_match: args.exact_match, limit: args.limit, cursor: args.cursor }),
      result: (a) => ({
        persons: (a.data?.items ?? []).map((found: any) => ({
          id: found.item.id,
          name: found.item.name,
          emails: values(found.item.emails),
          phones: values(found.item.phones),
          organization: found.item.organization?.name ?? null,
        })),
        next_cursor: a.additional_data?.next_cursor ?? null,
      }),
    }),
    requestTool({
      action: "create_deal",
      effect: "write",
      title: "Create a Pipedrive deal",
      description: "Adds a deal (POST /api/v2/deals) with a title, value and currency, for a person or organization, in a stage.",
      input: z.object({ title: z.string().min(1).max(255), ...DealFields }),
      method: "POST",
      path: "/api/v2/deals",
      result: (a) => deal(a.data),
    }),
    requestTool({
      action: "update_deal",
      effect: "write",
      title: "Update a Pipedrive deal",
      description: "Moves a deal to a stage, marks it won or lost, or changes its value (PATCH /api/v2/deals/{id}).",
      input: z.object({ deal_id: Id, title: z.string().min(1).max(255).optional(), ...DealFields, lost_reason: z.string().max(255).optional() }),
      method: "PATCH",
      path: "/api/v2/deals/{deal_id}",
      result: (a) => deal(a.data),
    }),
    requestTool({
      action: "list_deals",
      effect: "read",
      title: "List Pipedrive deals",
      description:
        "Lists deals newest first (GET /api/v2/deals, sort_by add_time desc), optionally of one status, stage or person. Deal ids are stable, so it drives a 'new deal' poll trigger (items_path: deals, id_path: id).",
      input: z.object({
        status: z.enum(["open", "won", "lost", "deleted"]).optional(),
        stage_id: Id.optional(),
        person_id: Id.optional(),
        limit: z.number().int().min(1).max(500).default(50),
        cursor: Cursor,
      }),
      method: "GET",
      path: "/api/v2/deals",
      query: (args) => ({
        status: args.status,
        stage_id: args.stage_id,
        person_id: args.person_id,
        sort_by: "add_time",
        sort_direction: "desc",
        limit: args.limit,
        cursor: args.cursor,
      }),
      result: (a) => ({ deals: (a.data ?? []).map(deal), next_cursor: a.additional_data?.next_cursor ?? null }),
    }),
  ],
});
