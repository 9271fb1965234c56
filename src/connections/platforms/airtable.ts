import { z } from "@hono/zod-openapi";
import { PlatformError, baseUrlField, definePlatform, platformTool, secret } from "./types";

type AirtableConfig = { access_token: string; default_base_id?: string; base_url?: string };

const BaseId = z.string().regex(/^app[A-Za-z0-9]{14}$/);
const Fields = z.record(z.string(), z.unknown());

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
  async test(client) {
    const me = await client.request<{ id: string }>({ method: "GET", path: "/meta/whoami" });
    return `Connected as ${me.id}.`;
  },
  tools: [
    platformTool({
      action: "create_record",
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
      title: "List Airtable records",
      description: "Lists records of a table (GET /{base_id}/{table}), optionally filtered by a formula.",
      input: z.object({
        base_id: BaseId.optional(),
        table: z.string().min(1).max(200),
        filter_by_formula: z.string().max(2000).optional(),
        max_records: z.number().int().min(1).max(100).default(20),
        view: z.string().max(200).optional(),
      }),
      async run(client, args) {
        const base = args.base_id ?? client.config.default_base_id;
        if (!base) throw new PlatformError("Name a base_id, or set default_base_id on the connection.", 400);
        const page = await client.request<{ records: { id: string; fields: Record<string, unknown> }[]; offset?: string }>({
          method: "GET",
          path: `/${base}/${encodeURIComponent(args.table)}`,
          query: { maxRecords: args.max_records, filterByFormula: args.filter_by_formula, view: args.view },
        });
        return { records: page.records.map((r) => ({ id: r.id, fields: r.fields })), offset: page.offset ?? null };
      },
    }),
  ],
});
