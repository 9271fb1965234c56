import { z } from "@hono/zod-openapi";
import { text } from "./failures";
import { requestTool } from "./request-tool";
import { PlatformError, type PlatformFailure, baseUrlField, definePlatform, platformTool, secret } from "./types";

type KlaviyoConfig = { private_key: string; base_url?: string };

// Klaviyo's API (developers.klaviyo.com/en/reference/api_overview): https://a.klaviyo.com/api, a
// private key as `Authorization: Klaviyo-API-Key pk_…` (developers.klaviyo.com/en/docs/authenticate_),
// and a `revision` header pinning the answers' shape. A revision is supported two years, then
// retired (developers.klaviyo.com/en/docs/api_versioning_and_deprecation_policy): 2026-07-15 is GA
// and stable; the endpoints used here keep the shapes they had since 2024.
const REVISION = "2026-07-15";
// JSON:API bodies, sent and asked for with JSON:API's media type, as the reference documents
// (developers.klaviyo.com/en/reference/api_overview#json-api-feature-guides).
const JSON_API = "application/vnd.api+json";
const WRITE = { "Content-Type": JSON_API };

const ProfileId = z.string().regex(/^[A-Za-z0-9]{1,64}$/, "A Klaviyo profile id (01GDDKASAP8TKDDA2GRZDSVP4H).");
const ListId = z.string().regex(/^[A-Za-z0-9]{1,64}$/, "A Klaviyo list id (Y6nRLr); list_lists gives them.");
const Email = z.string().email().max(320);
const Phone = z.string().regex(/^\+[1-9]\d{4,14}$/, "A phone number in E.164 form: +15005550006.");
const Properties = z.record(z.string().max(200), z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()]));
/** Klaviyo's page cursor, as it appears in links.next (base64 and the like). */
const Cursor = z
  .string()
  .regex(/^[A-Za-z0-9_=+/.:-]{1,1000}$/, "Pass the next_cursor of the previous page as it was given.")
  .optional()
  .describe("The previous page's next_cursor.");

/**
 * Klaviyo's error body, JSON:API's: {errors: [{id, status, code, title, detail, source: {pointer |
 * parameter}}]} (developers.klaviyo.com/en/docs/rate_limits_and_error_handling). The detail says
 * the most ("A list with id X does not exist."), the title the rest ("Request was throttled.").
 * A 401 (not_authenticated) is the key's fault; a 403 is a key without the scope one call needs.
 */
function readKlaviyoError(status: number, body: any): PlatformFailure | undefined {
  if (status < 400 || !Array.isArray(body?.errors) || body.errors.length === 0) return undefined;
  const first = body.errors[0];
  const message = body.errors
    .slice(0, 5)
    .map((e: any) => {
      const where = text(e?.source?.pointer, 100) ?? text(e?.source?.parameter, 100);
      const said = text(e?.detail, 300) ?? text(e?.title, 200);
      return said && where && !said.includes(where) ? `${said} (${where})` : said;
    })
    .filter(Boolean)
    .join("; ");
  const hint = status === 403 ? " Give the private key the scope this call needs (Settings → API keys: profiles, events, lists, subscriptions)." : "";
  return { message: `${message}${hint}`, code: text(first?.code, 100), authFailure: status === 401 ? "error" : null };
}

/** The page[cursor] of a links.next URL, or null on the last page. */
function nextCursor(links: any): string | null {
  const next = typeof links?.next === "string" ? links.next : "";
  if (!next) return null;
  try {
    return new URL(next).searchParams.get("page[cursor]");
  } catch {
    return null;
  }
}

const profile = (p: any) => {
  const a = p?.attributes ?? {};
  return {
    id: p?.id,
    email: a.email ?? null,
    phone_number: a.phone_number ?? null,
    external_id: a.external_id ?? null,
    first_name: a.first_name ?? null,
    last_name: a.last_name ?? null,
    organization: a.organization ?? null,
    properties: a.properties ?? {},
    created: a.created ?? null,
    updated: a.updated ?? null,
  };
};

const ProfileFields = {
  email: Email.optional(),
  phone_number: Phone.optional(),
  external_id: z.string().min(1).max(255).optional().describe("Your own id for the person."),
  first_name: z.string().max(255).optional(),
  last_name: z.string().max(255).optional(),
  organization: z.string().max(255).optional(),
  title: z.string().max(255).optional(),
  locale: z.string().max(35).optional().describe("An IETF language tag: en-US."),
  location: z
    .object({
      address1: z.string().max(255).optional(),
      city: z.string().max(255).optional(),
      region: z.string().max(255).optional(),
      country: z.string().max(255).optional(),
      zip: z.string().max(32).optional(),
      timezone: z.string().max(64).optional(),
    })
    .optional(),
  properties: Properties.optional().describe("Custom properties; a key given replaces its value, the others are kept."),
};

/** A profile named by one identifier, for events and subscriptions. */
const Someone = z.object({ email: Email.optional(), phone_number: Phone.optional(), external_id: z.string().min(1).max(255).optional() });

export const klaviyo = definePlatform<KlaviyoConfig>({
  id: "klaviyo",
  name: "Klaviyo",
  description:
    "Klaviyo profiles, events, lists and subscriptions: create or update a profile, find profiles (newest first, with a New profile poll), track an event, add profiles to a list and subscribe them to email or SMS marketing.",
  category: "marketing",
  authKind: "api_key",
  config: z.object({
    private_key: secret("A private API key (pk_…) from Settings → Account → API keys, with accounts (read), profiles, events, lists and subscriptions scopes."),
    base_url: baseUrlField,
  }),
  secretFields: ["private_key"],
  defaultBaseUrl: "https://a.klaviyo.com/api",
  authHeaders: (config) => ({ Authorization: `Klaviyo-API-Key ${config.private_key}`, revision: REVISION, Accept: JSON_API }),
  readError: readKlaviyoError,
  async test(client) {
    const accounts = await client.request<{ data: any[] }>({ method: "GET", path: "/accounts" });
    const name = accounts.data?.[0]?.attributes?.contact_information?.organization_name;
    return `Connected to Klaviyo${name ? ` (${name})` : ""}.`;
  },
  // Get Profiles sorts by creation, newest first (sort=-created): each new profile is seen once.
  polls: [{ title: "New profile", action: "get_profiles", arguments: { limit: 50 }, items_path: "profiles", id_path: "id" }],
  tools: [
    platformTool({
      action: "create_or_update_profile",
      effect: "write",
      title: "Create or update a Klaviyo profile",
      description:
        "Creates a profile, or updates the one with this email, phone number or external id (POST /profile-import; or the one with profile_id). Fields not given are kept.",
      input: z.object({ profile_id: ProfileId.optional().describe("Update this profile rather than matching by identifier."), ...ProfileFields }),
      async run(client, args) {
        const { profile_id, ...attributes } = args;
        if (!profile_id && !attributes.email && !attributes.phone_number && !attributes.external_id)
          throw new PlatformError("Give an email, phone_number or external_id (or the profile_id to update).", 400);
        const answer = await client.request({
          method: "POST",
          path: "/profile-import",
          headers: WRITE,
          body: { data: { type: "profile", ...(profile_id ? { id: profile_id } : {}), attributes } },
        });
        return profile(answer?.data);
      },
    }),
    requestTool({
      action: "get_profiles",
      effect: "read",
      title: "Get Klaviyo profiles",
      description:
        "Lists profiles newest first (GET /profiles, sort=-created), or finds the one with an email (filter=equals(email,…)); page with next_cursor.",
      input: z.object({
        email: Email.optional().describe("Only the profile with this email."),
        limit: z.number().int().min(1).max(100).default(20),
        cursor: Cursor,
      }),
      method: "GET",
      path: "/profiles",
      // Klaviyo's filter syntax (developers.klaviyo.com/en/docs/filtering_): a zod email holds no quote.
      query: (args) => ({
        ...(args.email ? { filter: `equals(email,"${args.email}")` } : {}),
        sort: "-created",
        "page[size]": args.limit,
        "page[cursor]": args.cursor,
      }),
      result: (a) => ({ profiles: (a.data ?? []).map(profile), next_cursor: nextCursor(a.links) }),
    }),
    platformTool({
      action: "create_event",
      effect: "write",
      title: "Track a Klaviyo event",
      description:
        "Records an event (a metric by name, e.g. Placed Order) for a profile named by email, phone number or external id (POST /events); the profile is created if new. Klaviyo accepts it for processing (202). In a workflow step the step's key is the event's unique_id, so a retried step records it once.",
      input: z.object({
        metric_name: z.string().min(1).max(128),
        profile: Someone,
        properties: z.record(z.string().max(200), z.unknown()).optional().describe("The event's own properties (order id, items…)."),
        value: z.number().optional().describe("A monetary value, for revenue reports."),
        value_currency: z
          .string()
          .regex(/^[A-Z]{3}$/)
          .optional(),
        time: z.string().datetime({ offset: true }).optional().describe("When it happened (default: now)."),
        unique_id: z.string().min(1).max(255).optional().describe("Klaviyo records one event per unique_id, profile and metric."),
      }),
      async run(client, args, ctx) {
        const who = Object.fromEntries(Object.entries(args.profile).filter(([, v]) => v !== undefined));
        if (Object.keys(who).length === 0) throw new PlatformError("Name the profile by email, phone_number or external_id.", 400);
        // Klaviyo's deduplication (developers.klaviyo.com/en/reference/create_event): a retried step
        // with the same unique_id is recorded once.
        const uniqueId = args.unique_id ?? ctx.idempotencyKey;
        await client.request({
          method: "POST",
          path: "/events",
          headers: WRITE,
          body: {
            data: {
              type: "event",
              attributes: {
                properties: args.properties ?? {},
                ...(args.time ? { time: args.time } : {}),
                ...(args.value !== undefined ? { value: args.value } : {}),
                ...(args.value_currency ? { value_currency: args.value_currency } : {}),
                ...(uniqueId ? { unique_id: uniqueId } : {}),
                metric: { data: { type: "metric", attributes: { name: args.metric_name } } },
                profile: { data: { type: "profile", attributes: who } },
              },
            },
          },
        });
        return { accepted: true, metric_name: args.metric_name, unique_id: uniqueId ?? null };
      },
    }),
    requestTool({
      action: "list_lists",
      effect: "read",
      title: "List Klaviyo lists",
      description: "The account's lists, newest first, ten a page as Klaviyo pages them (GET /lists); page with next_cursor.",
      input: z.object({ cursor: Cursor }),
      method: "GET",
      path: "/lists",
      query: (args) => ({ sort: "-created", "page[cursor]": args.cursor }),
      result: (a) => ({
        lists: (a.data ?? []).map((l: any) => ({
          id: l.id,
          name: l.attributes?.name ?? null,
          opt_in_process: l.attributes?.opt_in_process ?? null,
          created: l.attributes?.created ?? null,
          updated: l.attributes?.updated ?? null,
        })),
        next_cursor: nextCursor(a.links),
      }),
    }),
    requestTool({
      action: "add_profiles_to_list",
      effect: "write",
      title: "Add profiles to a Klaviyo list",
      description:
        "Adds existing profiles to a list by id (POST /lists/{id}/relationships/profiles), without subscribing them to marketing (use subscribe_profiles for consent).",
      input: z.object({ list_id: ListId, profile_ids: z.array(ProfileId).min(1).max(1000) }),
      method: "POST",
      path: "/lists/{list_id}/relationships/profiles",
      headers: WRITE,
      body: (args) => ({ data: args.profile_ids.map((id) => ({ type: "profile", id })) }),
      result: (_a, args) => ({ list_id: args.list_id, added: args.profile_ids.length }),
    }),
    platformTool({
      action: "subscribe_profiles",
      effect: "write",
      title: "Subscribe Klaviyo profiles to marketing",
      description:
        "Records email and/or SMS marketing consent for profiles and, with a list_id, adds them to that list (POST /profile-subscription-bulk-create-jobs). Klaviyo runs it as a job (202); a list with double opt-in sends its confirmation first.",
      input: z.object({
        list_id: ListId.optional(),
        profiles: z
          .array(z.object({ email: Email.optional(), phone_number: Phone.optional() }))
          .min(1)
          .max(1000),
        channels: z
          .array(z.enum(["email", "sms"]))
          .min(1)
          .max(2)
          .default(["email"]),
        custom_source: z.string().max(255).optional().describe("Where the consent was given (Homepage footer signup form)."),
      }),
      async run(client, args) {
        const profiles = args.profiles.map((p, i) => {
          const subscriptions = {
            ...(args.channels.includes("email") && p.email ? { email: { marketing: { consent: "SUBSCRIBED" } } } : {}),
            ...(args.channels.includes("sms") && p.phone_number ? { sms: { marketing: { consent: "SUBSCRIBED" } } } : {}),
          };
          if (Object.keys(subscriptions).length === 0)
            throw new PlatformError(
              `profiles[${i}] has no ${args.channels.join(" or ")} identifier to subscribe (email for email, phone_number for sms).`,
              400,
            );
          return { type: "profile", attributes: { ...p, subscriptions } };
        });
        await client.request({
          method: "POST",
          path: "/profile-subscription-bulk-create-jobs",
          headers: WRITE,
          body: {
            data: {
              type: "profile-subscription-bulk-create-job",
              attributes: { ...(args.custom_source ? { custom_source: args.custom_source } : {}), profiles: { data: profiles } },
              ...(args.list_id ? { relationships: { list: { data: { type: "list", id: args.list_id } } } } : {}),
            },
          },
        });
        return { accepted: true, profiles: profiles.length, list_id: args.list_id ?? null };
      },
    }),
  ],
});
