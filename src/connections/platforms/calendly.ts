import { z } from "@hono/zod-openapi";
import { text } from "./failures";
import { requestTool } from "./request-tool";
import { type PlatformClient, type PlatformFailure, baseUrlField, definePlatform, platformTool, secret } from "./types";

type CalendlyConfig = { access_token: string; base_url?: string };

// Calendly API v2 (developer.calendly.com/api-docs): resources are named by URI
// (https://api.calendly.com/scheduled_events/<uuid>), lists are {collection, pagination} paged by
// page_token, and a personal access token goes in Authorization: Bearer.

const ResourceUri = z
  .string()
  .url()
  .max(300)
  .regex(/^https:\/\/api\.calendly\.com\/(users|organizations)\/[A-Za-z0-9-]{1,64}$/, "A Calendly user or organization URI.");
const EventUuid = z
  .string()
  .regex(/^[A-Za-z0-9-]{1,64}$/, "The event's uuid: the last part of its uri, as the list tools give it.")
  .describe("The event's uuid (list_scheduled_events gives it).");
const Count = z.number().int().min(1).max(100).default(20);
const PageToken = z
  .string()
  .regex(/^[A-Za-z0-9_=-]{1,500}$/)
  .optional()
  .describe("The previous page's next_cursor.");

/**
 * Calendly's error body: {title, message, details?: [{parameter, message}]} ("Invalid Argument",
 * "Resource Not Found", "Unauthenticated", "Permission Denied"). A 401 is the token's fault.
 */
function readCalendlyError(status: number, body: any): PlatformFailure | undefined {
  if (status < 400 || !body || typeof body !== "object" || typeof body.message !== "string") return undefined;
  const details = Array.isArray(body.details)
    ? body.details
        .slice(0, 5)
        .map((d: any) => [text(d?.parameter, 100), text(d?.message, 200)].filter(Boolean).join(": "))
        .filter(Boolean)
    : [];
  return {
    message: [text(body.message, 300), ...details].join("; "),
    code: text(body.title, 100),
    authFailure: status === 401 ? "error" : null,
  };
}

const uuidOf = (uri: unknown) => (typeof uri === "string" ? (uri.split("/").pop() ?? null) : null);
const nextToken = (a: any) => a.pagination?.next_page_token ?? null;

const event = (e: any) => ({
  uuid: uuidOf(e.uri),
  uri: e.uri,
  name: e.name ?? null,
  status: e.status,
  start_time: e.start_time,
  end_time: e.end_time,
  event_type: e.event_type ?? null,
  location: e.location?.join_url ?? e.location?.location ?? null,
  invitees: e.invitees_counter?.active ?? null,
  created_at: e.created_at ?? null,
  cancellation_reason: e.cancellation?.reason ?? null,
});

const invitee = (i: any) => ({
  uuid: uuidOf(i.uri),
  uri: i.uri,
  email: i.email,
  name: i.name ?? null,
  status: i.status,
  timezone: i.timezone ?? null,
  created_at: i.created_at ?? null,
  answers: (i.questions_and_answers ?? []).map((qa: any) => ({ question: qa.question, answer: qa.answer })),
  utm_source: i.tracking?.utm_source ?? null,
  cancel_url: i.cancel_url ?? null,
  reschedule_url: i.reschedule_url ?? null,
});

/** The user the lists are about: the one named, else the token's own (GET /users/me). */
async function owner(client: PlatformClient<CalendlyConfig>, args: { user?: string; organization?: string }) {
  if (args.user || args.organization) return { user: args.user, organization: args.organization };
  const me = await client.request<{ resource: { uri: string } }>({ method: "GET", path: "/users/me" });
  return { user: me.resource.uri, organization: undefined };
}

export const calendly = definePlatform<CalendlyConfig>({
  id: "calendly",
  name: "Calendly",
  description: "Calendly bookings: scheduled events and their invitees (with their answers), event types, cancellations, and a poll for new bookings.",
  category: "productivity",
  authKind: "bearer_token",
  config: z.object({
    access_token: secret("A personal access token (Integrations → API & Webhooks → Personal access tokens)."),
    base_url: baseUrlField,
  }),
  secretFields: ["access_token"],
  defaultBaseUrl: "https://api.calendly.com",
  authHeaders: (config) => ({ Authorization: `Bearer ${config.access_token}` }),
  readError: readCalendlyError,
  async test(client) {
    const me = await client.request<{ resource: { name: string; email: string } }>({ method: "GET", path: "/users/me" });
    return `Connected as ${me.resource.name} (${me.resource.email}).`;
  },
  polls: [{ title: "New booking", action: "list_scheduled_events", arguments: { status: "active", limit: 50 }, items_path: "events", id_path: "uri" }],
  tools: [
    requestTool({
      action: "get_current_user",
      effect: "read",
      title: "Get the Calendly user",
      description: "The token's user (GET /users/me): uri, name, email, scheduling link, time zone and organization uri.",
      input: z.object({}),
      method: "GET",
      path: "/users/me",
      result: (a) => ({
        uri: a.resource.uri,
        name: a.resource.name,
        email: a.resource.email,
        scheduling_url: a.resource.scheduling_url ?? null,
        timezone: a.resource.timezone ?? null,
        organization: a.resource.current_organization ?? null,
      }),
    }),
    platformTool({
      action: "list_event_types",
      effect: "read",
      title: "List Calendly event types",
      description: "The event types (meeting kinds) of a user, default the token's own (GET /event_types): name, duration, booking link.",
      input: z.object({ user: ResourceUri.optional(), active: z.boolean().optional(), limit: Count, cursor: PageToken }),
      async run(client, args) {
        const who = await owner(client, args);
        const a = await client.request({
          method: "GET",
          path: "/event_types",
          query: { user: who.user, organization: who.organization, active: args.active, count: args.limit, page_token: args.cursor },
        });
        return {
          event_types: (a.collection ?? []).map((t: any) => ({
            uri: t.uri,
            name: t.name,
            slug: t.slug ?? null,
            active: t.active,
            duration: t.duration ?? null,
            scheduling_url: t.scheduling_url ?? null,
          })),
          next_cursor: nextToken(a),
        };
      },
    }),
    platformTool({
      action: "list_scheduled_events",
      effect: "read",
      title: "List Calendly scheduled events",
      description:
        "Scheduled events (bookings) of a user or organization, default the token's user (GET /scheduled_events), latest start first unless sort says otherwise; filter by status, a start window or an invitee's email. Each has a stable uri, so it drives a 'new booking' poll trigger (items_path: events, id_path: uri).",
      input: z.object({
        user: ResourceUri.optional(),
        organization: ResourceUri.optional(),
        status: z.enum(["active", "canceled"]).optional(),
        min_start_time: z.string().datetime({ offset: true }).optional(),
        max_start_time: z.string().datetime({ offset: true }).optional(),
        invitee_email: z.string().email().max(320).optional(),
        sort: z.enum(["start_time:desc", "start_time:asc"]).default("start_time:desc"),
        limit: Count,
        cursor: PageToken,
      }),
      async run(client, args) {
        const who = await owner(client, args);
        const a = await client.request({
          method: "GET",
          path: "/scheduled_events",
          query: {
            user: who.user,
            organization: who.organization,
            status: args.status,
            min_start_time: args.min_start_time,
            max_start_time: args.max_start_time,
            invitee_email: args.invitee_email,
            sort: args.sort,
            count: args.limit,
            page_token: args.cursor,
          },
        });
        return { events: (a.collection ?? []).map(event), next_cursor: nextToken(a) };
      },
    }),
    requestTool({
      action: "get_event",
      effect: "read",
      title: "Get a Calendly scheduled event",
      description: "Reads one scheduled event (GET /scheduled_events/{uuid}): times, status, location, invitee count, cancellation reason.",
      input: z.object({ event_uuid: EventUuid }),
      method: "GET",
      path: "/scheduled_events/{event_uuid}",
      result: (a) => event(a.resource),
    }),
    requestTool({
      action: "list_event_invitees",
      effect: "read",
      title: "List a Calendly event's invitees",
      description:
        "Who booked an event (GET /scheduled_events/{uuid}/invitees): name, email, time zone, their answers to the booking questions, UTM source, cancel and reschedule links.",
      input: z.object({
        event_uuid: EventUuid,
        status: z.enum(["active", "canceled"]).optional(),
        email: z.string().email().max(320).optional(),
        limit: Count,
        cursor: PageToken,
      }),
      method: "GET",
      path: "/scheduled_events/{event_uuid}/invitees",
      query: (args) => ({ status: args.status, email: args.email, count: args.limit, page_token: args.cursor }),
      result: (a) => ({ invitees: (a.collection ?? []).map(invitee), next_cursor: nextToken(a) }),
    }),
    requestTool({
      action: "cancel_event",
      effect: "destructive",
      title: "Cancel a Calendly scheduled event",
      description: "Cancels a scheduled event for everyone invited, with a reason they are shown (POST /scheduled_events/{uuid}/cancellation).",
      input: z.object({ event_uuid: EventUuid, reason: z.string().max(10_000).optional() }),
      method: "POST",
      path: "/scheduled_events/{event_uuid}/cancellation",
      result: (a) => ({
        canceled: true,
        reason: a.resource?.reason ?? null,
        canceled_by: a.resource?.canceled_by ?? null,
        canceler_type: a.resource?.canceler_type ?? null,
      }),
    }),
  ],
});
