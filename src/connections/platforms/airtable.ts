import { z } from "@hono/zod-openapi";
import { text } from "./failures";
import { PlatformError, type PlatformFailure, baseUrlField, definePlatform, platformTool, secret } from "./types";

type AirtableConfig = { access_token: string; default_base_id?: string; base_url?: string };

const BaseId = z.string().regex(/^app[A-Za-z0-9]{14}$/);
const Fields = z.record(z.string(), z.unknown());

/** Airtable asks for 30 s of quiet after a 429 and sends no Retry-After (airtable.com/developers/web/api/rate-limits). */
const RATE_LIMIT_WAIT_SECONDS = 30;

/**
 * Airtable's error reader: `{error: {type, message}}`, `{error: "NOT_FOUND"}` for a missing base
 * or table, and `{errors: [{error, message}]}` for a rate limit (support.airtable.com "API: Common
 * troubleshooting"). The type leads, as Airtable's messages lean on it:
 * "INVALID_VALUE_FOR_COLUMN: Field \"Amount\" cannot accept the provided value".
 */
function readAirtableError(status: number, body: any): PlatformFailure | undefined {
  if (status < 400) return undefined;
  const error = body?.error ?? (Array.isArray(body?.errors) ? body.errors[0] : undefined);
  const type = typeof error === "string" ? text(error, 100) : text(error?.type ?? error?.error, 100);
  const message = [type, text(error?.message, 400)].filter(Boolean).join(": ");
  return {
    message: message || (typeof body === "string" ? body.slice(0, 300) : ""),
    code: type,
    authFailure: status === 401 ? "error" : null,
    retryAfterSeconds: status === 429 ? RATE_LIMIT_WAIT_SECONDS : undefined,
  };
}

export const airtable = definePlatform<AirtableConfig>({
  id: "airtable",
  name: "Airtable",
  description: "Create and list records in Airtable bases, with a personal access token.",
  category: "database",
  authKind: "bearer_token",
  config: z.object({
    access_token: secret("A personal access token (pat…) with data.records scopes."),
    default_base_id: BaseId.optional(),
    base_url: baseUrlField,
  }),
  secretFields: ["access_token"],
  defaultBaseUrl: "https://api.airtable.com/v0",
  authHeaders: (config) => ({ Authorization: `Bearer ${config.access_token}` }),
  readError: readAirtableError,
  async test(client) {
    const me = await client.request<{ id: string }>({ method: "GET", path: "/meta/whoami" });
    return `Connected as ${me.id}.`;
  },
  tools: [
    platformTool({
      action: "create_record",
      effect: "write",
      title: "Create an Airtable record",
      description: "Adds a record to a table (POST /{base_id}/{table}).",
      input: z.object({ base_id: BaseId.optional(), table: z.string().min(1).max(200), fields: Fields, typecast: z.boolean().default(false) }),
      async run(client, args) {
        const base = args.base_id ?? client.config.default_base_id;
        if (!base) throw new PlatformError("Name a base_id, or set default_base_id on the connection.", 400);
        const record = await client.request<{ id: string; createdTime: string; fields: Record<string, unknown> }>({
          method: "POST",
          path: `/${base}/${encodeURIComponent(args.table)}`,
          body: { fields: args.fields, typecast: args.typecast },
        });
        return { id: record.id, created_time: record.createdTime, fields: record.fields };
      },
    }),
    platformTool({
      action: "list_records",
      effect: "read",
      title: "List Airtable records",
      description:
        "Lists records of a table a page at a time (GET /{base_id}/{table}), optionally filtered by a formula; pass the answer's `next_cursor` as `cursor` for the next page (null: no more). `max_records` caps the records over all pages.",
      input: z.object({
        base_id: BaseId.optional(),
        table: z.string().min(1).max(200),
        filter_by_formula: z.string().max(2000).optional(),
        page_size: z.number().int().min(1).max(100).default(20),
        max_records: z.number().int().min(1).max(100_000).optional(),
        view: z.string().max(200).optional(),
        cursor: z.string().min(1).max(200).optional().describe("The previous page's next_cursor (Airtable's offset)."),
      }),
      async run(client, args) {
        const base = args.base_id ?? client.config.default_base_id;
        if (!base) throw new PlatformError("Name a base_id, or set default_base_id on the connection.", 400);
        const page = await client.request<{ records: { id: string; fields: Record<string, unknown> }[]; offset?: string }>({
          method: "GET",
          path: `/${base}/${encodeURIComponent(args.table)}`,
          query: { pageSize: args.page_size, maxRecords: args.max_records, filterByFormula: args.filter_by_formula, view: args.view, offset: args.cursor },
        });
        return { records: page.records.map((r) => ({ id: r.id, fields: r.fields })), next_cursor: page.offset ?? null };
      },
    }),
  ],
});
