import { z } from "@hono/zod-openapi";
import { oauthConfigFields } from "./oauth-spec";
import { requestTool } from "./request-tool";
import { API_VERSION, ApiName, Fields, QueryLocator, RecordId, fieldsOf, locatorOf, readSalesforceError, soqlDateTime } from "./salesforce-api";
import { PlatformError, type PlatformClient, baseUrlField, definePlatform, platformTool } from "./types";

type SalesforceConfig = { instance_url: string; base_url?: string /** Set for each call from the connection's OAuth tokens. */; access_token?: string };

/**
 * The org's own host. The token answer names it (instance_url), but a connection keeps only the
 * tokens, so it is asked for: the My Domain URL (Setup → My Domain), on Salesforce's own domains
 * only, so the org's token is never sent anywhere else (base_url stays the way to a proxy).
 */
const InstanceUrl = z
  .string()
  .max(200)
  .regex(
    /^https:\/\/[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.(salesforce\.com|force\.com|cloudforce\.com|salesforce\.mil|sfcrmproducts\.cn)\/?$/,
    "The org's https My Domain URL, e.g. https://acme.my.salesforce.com.",
  )
  .meta({ description: "Your org's My Domain URL (Setup → My Domain), e.g. https://acme.my.salesforce.com or https://acme--dev.sandbox.my.salesforce.com." });

/** The answer of POST /sobjects/{sobject} and of an upsert: a SaveResult. */
const saved = (a: any) => ({ id: a?.id ?? null, success: a?.success ?? true, errors: Array.isArray(a?.errors) ? a.errors.slice(0, 10) : [] });

type QueryPage = { totalSize: number; done: boolean; nextRecordsUrl?: string; records: any[] };

/** One page of a SOQL query: the query itself, or the page after `cursor` (GET /query/{locator}). */
async function queryPage(client: PlatformClient<SalesforceConfig>, soql: string | undefined, cursor: string | undefined, batchSize?: number) {
  // "Sforce-Query-Options: batchSize=n" sets the page size, 200 to 2000 (default 2000):
  // developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/headers_queryoptions.htm
  const headers = batchSize ? { "Sforce-Query-Options": `batchSize=${batchSize}` } : undefined;
  if (cursor) return client.request<QueryPage>({ method: "GET", path: `/query/${encodeURIComponent(cursor)}`, headers });
  return client.request<QueryPage>({ method: "GET", path: "/query", query: { q: soql }, headers });
}

const LEAD_FIELDS = "Id, FirstName, LastName, Email, Company, Status, LeadSource, CreatedDate";

const lead = (l: any) => ({
  id: l.Id,
  first_name: l.FirstName ?? null,
  last_name: l.LastName ?? null,
  email: l.Email ?? null,
  company: l.Company ?? null,
  status: l.Status ?? null,
  lead_source: l.LeadSource ?? null,
  created_at: l.CreatedDate ?? null,
});

/** list_new_leads' cursor: the last lead's CreatedDate and Id, where the next page goes on from. */
const LeadCursor = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z_[A-Za-z0-9]{18}$/, "Pass the next_cursor of the previous page as it was given.")
  .describe("The previous page's next_cursor.");

export const salesforce = definePlatform<SalesforceConfig>({
  id: "salesforce",
  name: "Salesforce",
  description:
    "Create, update, upsert, read and query Salesforce records (leads, contacts, accounts, custom objects), with a New lead poll (Connect with Salesforce).",
  category: "crm",
  authKind: "oauth2",
  config: z.object({ instance_url: InstanceUrl, base_url: baseUrlField, ...oauthConfigFields }),
  secretFields: ["client_secret"],
  // The web server flow with PKCE (help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_web_server_flow.htm):
  // "api" for the REST API and "refresh_token" for a refresh token, joined with spaces. Salesforce
  // answers no expires_in: the token lasts the org's session timeout, so it is renewed on a 401.
  // A sandbox signs in at test.salesforce.com: override authorize_url and token_url with an app of your own.
  oauth: {
    authorizeUrl: "https://login.salesforce.com/services/oauth2/authorize",
    tokenUrl: "https://login.salesforce.com/services/oauth2/token",
    defaultScopes: ["api", "refresh_token"],
    scopeSeparator: " ",
    tokenField: "access_token",
    deploymentClient: true,
  },
  // Every resource is under <instance>/services/data/vXX.X (api_rest.meta/api_rest/intro_rest_resources.htm).
  baseUrl: (config) => config.base_url ?? `${config.instance_url.replace(/\/$/, "")}/services/data/${API_VERSION}`,
  // The OAuth access token as a bearer (api_rest.meta/api_rest/quickstart_oauth.htm).
  authHeaders: (config) => ({ Authorization: `Bearer ${config.access_token}` }),
  readError: readSalesforceError,
  async test(client) {
    // The version's resource list: the cheapest authenticated call, and no permission beyond "API Enabled".
    await client.request({ method: "GET", path: "" });
    return `Connected; the org's REST API ${API_VERSION} answers.`;
  },
  polls: [{ title: "New lead", action: "list_new_leads", arguments: { limit: 20 }, items_path: "leads", id_path: "id" }],
  tools: [
    requestTool({
      action: "create_record",
      effect: "write",
      title: "Create a Salesforce record",
      description:
        "Creates a record of any object (POST /sobjects/{sobject}), e.g. an Account, a Contact or a custom object, from field values by API name. Answers its id.",
      input: z.object({ sobject: ApiName.describe("The object's API name: Account, Contact, Invoice__c…"), fields: Fields }),
      method: "POST",
      path: "/sobjects/{sobject}",
      body: (args) => args.fields,
      result: saved,
    }),
    requestTool({
      action: "update_record",
      effect: "write",
      title: "Update a Salesforce record",
      description: "Changes the given fields of a record (PATCH /sobjects/{sobject}/{id}); the others are kept. Salesforce answers 204 with no body.",
      input: z.object({ sobject: ApiName, record_id: RecordId, fields: Fields }),
      method: "PATCH",
      path: "/sobjects/{sobject}/{record_id}",
      body: (args) => args.fields,
      result: (_a, args) => ({ id: args.record_id, updated: true }),
    }),
    requestTool({
      action: "get_record",
      effect: "read",
      title: "Get a Salesforce record",
      description: "Reads a record by its id (GET /sobjects/{sobject}/{id}), all its fields or only those named in `fields`.",
      input: z.object({ sobject: ApiName, record_id: RecordId, fields: z.array(ApiName).min(1).max(200).optional().describe("Default: every field.") }),
      method: "GET",
      path: "/sobjects/{sobject}/{record_id}",
      query: (args) => ({ fields: args.fields?.join(",") }),
      result: (r, args) => ({ id: r.Id ?? args.record_id, sobject: r.attributes?.type ?? args.sobject, fields: fieldsOf(r) }),
    }),
    requestTool({
      action: "upsert_by_external_id",
      effect: "write",
      title: "Upsert a Salesforce record by external ID",
      description:
        "Creates the record whose external ID field has this value, or updates it if one exists (PATCH /sobjects/{sobject}/{field}/{value}). `created` says which; a value that several records share is Salesforce's 300, and nothing is written.",
      input: z.object({
        sobject: ApiName,
        external_id_field: ApiName.describe("An External ID field of the object, e.g. External_Id__c."),
        external_id: z.string().min(1).max(255),
        fields: Fields,
      }),
      method: "PATCH",
      path: "/sobjects/{sobject}/{external_id_field}/{external_id}",
      body: (args) => args.fields,
      // 201 {id, success, errors, created: true} for a new record; an update is 200 with created:
      // false (API 46.0 and later), or 204 without a body (api_rest.meta/api_rest/dome_upsert.htm).
      result: (a) => ({ id: a?.id ?? null, created: a ? (a.created ?? true) : false }),
    }),
    platformTool({
      action: "query",
      effect: "read",
      title: "Run a SOQL query",
      description:
        "Runs a SOQL query (GET /query?q=…) and answers a page of its records (without Salesforce's attributes) with the total; pass `next_cursor` back as `cursor` (alone) for the next page.",
      input: z
        .object({
          soql: z.string().min(1).max(16_000).optional().describe("E.g. SELECT Id, Name FROM Account WHERE Industry = 'Retail' ORDER BY CreatedDate DESC"),
          cursor: QueryLocator.optional(),
          batch_size: z.number().int().min(200).max(2000).optional().describe("Records per page (Salesforce's default: 2000)."),
        })
        .refine((args) => Boolean(args.soql) !== Boolean(args.cursor), "Give either soql or the cursor of a previous page."),
      async run(client, args) {
        const page = await queryPage(client, args.soql, args.cursor, args.batch_size);
        return {
          total_size: page.totalSize,
          done: page.done,
          records: (page.records ?? []).map(fieldsOf),
          next_cursor: page.done ? null : nextCursorOf(page.nextRecordsUrl),
        };
      },
    }),
    requestTool({
      action: "create_lead",
      effect: "write",
      title: "Create a Salesforce lead",
      description: "Creates a lead (POST /sobjects/Lead) from a name, a company and an email; other Lead fields go in `fields` by API name.",
      input: z.object({
        first_name: z.string().max(40).optional(),
        last_name: z.string().min(1).max(80),
        company: z.string().min(1).max(255),
        email: z.string().email().max(80).optional(),
        phone: z.string().max(40).optional(),
        title: z.string().max(128).optional(),
        lead_source: z.string().max(255).optional().describe("A value of the LeadSource picklist, e.g. Web."),
        fields: Fields.optional(),
      }),
      method: "POST",
      path: "/sobjects/Lead",
      body: (args) => ({
        ...args.fields,
        FirstName: args.first_name,
        LastName: args.last_name,
        Company: args.company,
        Email: args.email,
        Phone: args.phone,
        Title: args.title,
        LeadSource: args.lead_source,
      }),
      result: saved,
    }),
    platformTool({
      action: "list_new_leads",
      effect: "read",
      title: "List the newest Salesforce leads",
      description:
        "Lists leads newest first (SOQL ordered by CreatedDate, then Id, descending) with their ids, for a 'New lead' poll trigger (items_path: leads, id_path: id). Pass `next_cursor` as `cursor` for older ones.",
      input: z.object({ limit: z.number().int().min(1).max(200).default(20), cursor: LeadCursor.optional() }),
      async run(client, args) {
        // Keyset paging: the page after a cursor starts below its CreatedDate and Id, so it needs no
        // server-side locator (which Salesforce drops after 15 idle minutes). One more than the
        // page is asked for, to know whether another page follows.
        const [at, id] = args.cursor ? args.cursor.split("_") : [];
        const after = at ? ` WHERE CreatedDate < ${at} OR (CreatedDate = ${at} AND Id < '${id}')` : "";
        const soql = `SELECT ${LEAD_FIELDS} FROM Lead${after} ORDER BY CreatedDate DESC, Id DESC LIMIT ${args.limit + 1}`;
        const page = await queryPage(client, soql, undefined);
        const records = page.records ?? [];
        const last = records.length > args.limit ? records[args.limit - 1] : undefined;
        const lastAt = last && soqlDateTime(last.CreatedDate);
        if (last && (!lastAt || !/^[A-Za-z0-9]{18}$/.test(String(last.Id))))
          throw new PlatformError("Salesforce answered a lead without a CreatedDate or Id; the next page cannot be found.", 502);
        return { leads: records.slice(0, args.limit).map(lead), next_cursor: last ? `${lastAt}_${last.Id}` : null };
      },
    }),
  ],
});

/** A page that is not the last must hand on a cursor: a null one would read as "no more records". */
function nextCursorOf(nextRecordsUrl: unknown): string {
  const locator = locatorOf(nextRecordsUrl);
  if (!locator)
    throw new PlatformError("Salesforce's next page link is not one this tool can pass on; narrow the query.", 502, undefined, { retryable: false });
  return locator;
}
