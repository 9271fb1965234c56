import { z } from "@hono/zod-openapi";
import { text } from "./failures";
import { PlatformError, type PlatformClient, type PlatformFailure, baseUrlField, definePlatform, platformTool, secret } from "./types";
import { hubspotObjectTools } from "./hubspot-objects";
import { oauthConfigFields } from "./oauth-spec";

type HubSpotConfig = { access_token: string; base_url?: string };
type Contact = { id: string; properties: Record<string, unknown> };

/** HubSpot property values by internal name; a contact has a few hundred properties at most. */
const Properties = z
  .record(z.string().max(100), z.union([z.string().max(65_536), z.number(), z.boolean()]))
  .refine((values) => Object.keys(values).length <= 200, "At most 200 properties.");

/** The contact with this email, if any (POST /crm/v3/objects/contacts/search, an EQ filter). */
async function findContact(client: PlatformClient<HubSpotConfig>, email: string, properties: string[]): Promise<Contact | undefined> {
  const found = await client.request<{ total: number; results: Contact[] }>({
    method: "POST",
    path: "/crm/v3/objects/contacts/search",
    body: { filterGroups: [{ filters: [{ propertyName: "email", operator: "EQ", value: email }] }], properties, limit: 1 },
  });
  return found.results[0];
}

/** HubSpot names the contact a 409 collided with: "Contact already exists. Existing ID: 151". */
function existingContactId(error: PlatformError): string | undefined {
  return /Existing ID: (\d{1,20})/.exec(error.message)?.[1];
}

/**
 * HubSpot's error reader: `{status: "error", message, category, errors?: [{message, in?}]}`
 * (developers.hubspot.com/docs/api/error-handling; every field optional). The message is HubSpot's
 * own ("Contact already exists. Existing ID: 151"); a validation error's details, which HubSpot
 * packs into `errors`, follow it, and an expired OAuth token marks the connection expired.
 */
function readHubSpotError(status: number, body: any): PlatformFailure | undefined {
  if (status < 400 || !body || typeof body !== "object") return undefined;
  const category = text(body.category, 100);
  const details = Array.isArray(body.errors)
    ? body.errors
        .slice(0, 5)
        .map((e: any) => text(e?.message, 200))
        .filter((m: string | undefined): m is string => Boolean(m) && m !== body.message)
    : [];
  const message = [readableMessage(body.message), ...details].filter(Boolean).join("; ");
  const expired = category === "EXPIRED_AUTHENTICATION" || /expired/i.test(String(body.message ?? ""));
  return {
    message: message || category || "",
    code: category,
    authFailure: status === 401 ? (expired ? "expired" : "error") : null,
  };
}

/**
 * HubSpot's message, with the JSON it embeds for invalid properties read out:
 * 'Property values were not valid: [{"message":"Property \\"color\\" does not exist",…}]'
 * becomes 'Property values were not valid: Property "color" does not exist'.
 */
function readableMessage(message: unknown): string | undefined {
  if (typeof message !== "string") return undefined;
  const at = message.indexOf(": [");
  if (at < 0 || message.length > 20_000) return text(message, 300);
  try {
    const list = JSON.parse(message.slice(at + 2));
    const parts = Array.isArray(list)
      ? list
          .slice(0, 5)
          .map((item: any) => text(item?.message, 200))
          .filter(Boolean)
      : [];
    return parts.length ? `${message.slice(0, at)}: ${parts.join("; ")}` : text(message, 300);
  } catch {
    return text(message, 300);
  }
}

export const hubspot = definePlatform<HubSpotConfig>({
  id: "hubspot",
  name: "HubSpot CRM",
  description: "Contacts, deals, companies, notes and lists in HubSpot CRM, with a private app access token or OAuth.",
  category: "crm",
  authKind: "bearer_token",
  config: z.object({
    access_token: secret("A private app access token (pat-…) with crm.objects.contacts scopes."),
    base_url: baseUrlField,
  }),
  secretFields: ["access_token"],
  // "Connect with HubSpot": a public app's OAuth (developers.hubspot.com/docs/api/oauth-quickstart-guide);
  // access tokens last 30 minutes and are refreshed with the (long-lived) refresh token.
  oauth: {
    authorizeUrl: "https://app.hubspot.com/oauth/authorize",
    tokenUrl: "https://api.hubapi.com/oauth/v1/token",
    defaultScopes: [
      "crm.objects.contacts.read",
      "crm.objects.contacts.write",
      "crm.objects.deals.read",
      "crm.objects.deals.write",
      "crm.objects.companies.write",
      "crm.lists.write",
    ],
    tokenField: "access_token",
    deploymentClient: true,
    config: z.object({ base_url: baseUrlField, ...oauthConfigFields }),
    secretFields: ["client_secret"],
  },
  defaultBaseUrl: "https://api.hubapi.com",
  authHeaders: (config) => ({ Authorization: `Bearer ${config.access_token}` }),
  readError: readHubSpotError,
  async test(client) {
    await client.request({ method: "GET", path: "/crm/v3/objects/contacts", query: { limit: 1 } });
    return "Connected; contacts are readable.";
  },
  polls: [{ title: "New contact", action: "list_new_contacts", arguments: { limit: 20 }, items_path: "contacts", id_path: "id" }],
  tools: [
    platformTool({
      action: "create_contact",
      effect: "write",
      title: "Create a HubSpot contact",
      description:
        'Creates a contact (POST /crm/v3/objects/contacts). Extra HubSpot properties go in `properties`. HubSpot refuses a second contact with the same email (409); with `if_exists: "update"` that contact is updated instead, so a returning lead goes through. The result says whether the contact was `created`.',
      input: z.object({
        email: z.string().email(),
        firstname: z.string().max(200).optional(),
        lastname: z.string().max(200).optional(),
        company: z.string().max(200).optional(),
        phone: z.string().max(50).optional(),
        lifecyclestage: z.string().max(50).optional(),
        properties: Properties.optional(),
        if_exists: z
          .enum(["fail", "update"])
          .default("fail")
          .describe("When a contact with this email exists: fail (HubSpot's 409), or update that contact with these properties."),
      }),
      async run(client, args) {
        const { properties, if_exists, ...named } = args;
        const values = { ...properties, ...Object.fromEntries(Object.entries(named).filter(([, v]) => v !== undefined)) };
        try {
          const created = await client.request<Contact>({ method: "POST", path: "/crm/v3/objects/contacts", body: { properties: values } });
          return { id: created.id, properties: created.properties, created: true };
        } catch (error) {
          if (if_exists !== "update" || !(error instanceof PlatformError) || error.status !== 409) throw error;
          const id = existingContactId(error) ?? (await findContact(client, args.email, ["email"]))?.id;
          if (!id) throw error;
          const updated = await client.request<Contact>({ method: "PATCH", path: `/crm/v3/objects/contacts/${id}`, body: { properties: values } });
          return { id: updated.id, properties: updated.properties, created: false };
        }
      },
    }),
    platformTool({
      action: "list_contacts",
      effect: "read",
      title: "List HubSpot contacts",
      description:
        "Lists contacts a page at a time (GET /crm/v3/objects/contacts), oldest first; pass the answer's `next_cursor` as `cursor` for the next page (null: no more).",
      input: z.object({
        limit: z.number().int().min(1).max(100).default(20),
        cursor: z.string().min(1).max(200).optional().describe("The previous page's next_cursor."),
        properties: z
          .array(z.string().regex(/^[A-Za-z0-9_]{1,100}$/))
          .max(50)
          .optional()
          .describe("Properties to return (default: HubSpot's email, firstname, lastname and a few more)."),
      }),
      async run(client, args) {
        const page = await client.request<{ results: (Contact & { createdAt?: string; updatedAt?: string })[]; paging?: { next?: { after?: string } } }>({
          method: "GET",
          path: "/crm/v3/objects/contacts",
          query: { limit: args.limit, after: args.cursor, properties: args.properties?.join(","), archived: false },
        });
        return {
          contacts: page.results.map((c) => ({ id: c.id, properties: c.properties, created_at: c.createdAt ?? null, updated_at: c.updatedAt ?? null })),
          next_cursor: page.paging?.next?.after ?? null,
        };
      },
    }),
    platformTool({
      action: "find_contact",
      effect: "read",
      title: "Find a HubSpot contact by email",
      description: "Searches contacts by email (POST /crm/v3/objects/contacts/search) and returns the match, if any.",
      input: z.object({ email: z.string().email(), properties: z.array(z.string().max(100)).max(50).optional() }),
      async run(client, args) {
        const contact = await findContact(client, args.email, args.properties ?? ["email", "firstname", "lastname", "company", "lifecyclestage"]);
        return { found: Boolean(contact), id: contact?.id ?? null, properties: contact?.properties ?? null };
      },
    }),
    platformTool({
      action: "update_contact",
      effect: "write",
      title: "Update a HubSpot contact",
      description: "Updates a contact's properties (PATCH /crm/v3/objects/contacts/{id}).",
      input: z.object({ contact_id: z.string().regex(/^\d{1,20}$/), properties: Properties }),
      async run(client, args) {
        const updated = await client.request<Contact>({
          method: "PATCH",
          path: `/crm/v3/objects/contacts/${args.contact_id}`,
          body: { properties: args.properties },
        });
        return { id: updated.id, properties: updated.properties };
      },
    }),
    ...hubspotObjectTools,
  ],
});
