import { z } from "@hono/zod-openapi";
import { PlatformError, baseUrlField, definePlatform, platformTool, secret } from "./types";

type HubSpotConfig = { access_token: string; base_url?: string };

export const hubspot = definePlatform<HubSpotConfig>({
  id: "hubspot",
  name: "HubSpot CRM",
  description: "Create, update and find contacts in HubSpot CRM, with a private app access token.",
  category: "crm",
  authKind: "bearer_token",
  config: z.object({
    access_token: secret("A private app access token (pat-…) with crm.objects.contacts scopes."),
    base_url: baseUrlField,
  }),
  secretFields: ["access_token"],
  defaultBaseUrl: "https://api.hubapi.com",
  authHeaders: (config) => ({ Authorization: `Bearer ${config.access_token}` }),
  inspect(status, body) {
    if (status === 401) {
      const expired = body?.category === "EXPIRED_AUTHENTICATION" || /expired/i.test(String(body?.message ?? ""));
      return new PlatformError(`HubSpot refused the token: ${body?.message ?? "unauthorized"}`, status, expired ? "expired" : "error");
    }
    return undefined;
  },
  async test(client) {
    await client.request({ method: "GET", path: "/crm/v3/objects/contacts", query: { limit: 1 } });
    return "Connected; contacts are readable.";
  },
  tools: [
    platformTool({
      action: "create_contact",
      title: "Create a HubSpot contact",
      description: "Creates a contact (POST /crm/v3/objects/contacts). Extra HubSpot properties go in `properties`.",
      input: z.object({
        email: z.string().email(),
        firstname: z.string().max(200).optional(),
        lastname: z.string().max(200).optional(),
        company: z.string().max(200).optional(),
        phone: z.string().max(50).optional(),
        lifecyclestage: z.string().max(50).optional(),
        properties: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
      }),
      async run(client, args) {
        const { properties, ...named } = args;
        const created = await client.request<{ id: string; properties: Record<string, unknown> }>({
          method: "POST",
          path: "/crm/v3/objects/contacts",
          body: { properties: { ...properties, ...Object.fromEntries(Object.entries(named).filter(([, v]) => v !== undefined)) } },
        });
        return { id: created.id, properties: created.properties };
      },
    }),
    platformTool({
      action: "find_contact",
      title: "Find a HubSpot contact by email",
      description: "Searches contacts by email (POST /crm/v3/objects/contacts/search) and returns the match, if any.",
      input: z.object({ email: z.string().email(), properties: z.array(z.string().max(100)).max(50).optional() }),
      async run(client, args) {
        const found = await client.request<{ total: number; results: { id: string; properties: Record<string, unknown> }[] }>({
          method: "POST",
          path: "/crm/v3/objects/contacts/search",
          body: {
            filterGroups: [{ filters: [{ propertyName: "email", operator: "EQ", value: args.email }] }],
            properties: args.properties ?? ["email", "firstname", "lastname", "company", "lifecyclestage"],
            limit: 1,
          },
        });
        const contact = found.results[0];
        return { found: Boolean(contact), id: contact?.id ?? null, properties: contact?.properties ?? null };
      },
    }),
    platformTool({
      action: "update_contact",
      title: "Update a HubSpot contact",
      description: "Updates a contact's properties (PATCH /crm/v3/objects/contacts/{id}).",
      input: z.object({ contact_id: z.string().regex(/^\d+$/), properties: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])) }),
      async run(client, args) {
        const updated = await client.request<{ id: string; properties: Record<string, unknown> }>({
          method: "PATCH",
          path: `/crm/v3/objects/contacts/${args.contact_id}`,
          body: { properties: args.properties },
        });
        return { id: updated.id, properties: updated.properties };
      },
    }),
  ],
});
