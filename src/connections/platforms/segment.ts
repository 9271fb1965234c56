import { z } from "@hono/zod-openapi";
import { type PlatformFailure, type PlatformTool, baseUrlField, definePlatform, platformTool, secret } from "./types";

type SegmentConfig = { write_key: string; region?: "us" | "eu"; base_url?: string };

// The HTTP Tracking API (segment.com/docs/connections/sources/catalog/libraries/server/http-api):
// POST /v1/<call> with JSON; the source's write key as the Basic user with an empty password.
// EU workspaces send to events.eu1.segmentapis.com; events sent to the US host are dropped silently.
const HOSTS = { us: "https://api.segment.io", eu: "https://events.eu1.segmentapis.com" } as const;

const Traits = z.record(z.string().max(255), z.unknown()).optional();
const Identity = {
  user_id: z.string().min(1).max(255).optional().describe("Your id for the user (userId)."),
  anonymous_id: z.string().min(1).max(255).optional().describe("A device or session id, for users not known yet (anonymousId)."),
  timestamp: z.string().datetime({ offset: true }).optional().describe("When it happened (ISO 8601); default: when Segment receives it."),
  context: z.record(z.string().max(255), z.unknown()).optional().describe("Segment's context object (ip, locale, campaign, …)."),
};
const identified = (args: { user_id?: string; anonymous_id?: string }) => Boolean(args.user_id || args.anonymous_id);
const NEEDS_ID = "Give user_id or anonymous_id: Segment drops a call with neither without saying so.";

/**
 * Segment answers 200 for anything it can read, even an event it will drop (no user, no event
 * name); its documented refusal is a 400 for a call over 32 KB or a body that is not JSON.
 */
function readSegmentError(status: number): PlatformFailure | undefined {
  if (status === 400) return { message: "the call is over Segment's 32 KB limit or not valid JSON; send fewer properties or traits", authFailure: null };
  return undefined;
}

/**
 * One Tracking API call. The workflow step's idempotency key becomes the messageId, which Segment
 * deduplicates on, so a retried step records the event once.
 */
function trackingCall<S extends z.ZodObject<any>>(
  call: "track" | "identify" | "page" | "group",
  spec: { title: string; description: string; input: S; fields: (args: z.infer<S>) => Record<string, unknown> },
): PlatformTool<SegmentConfig, any> {
  return platformTool<SegmentConfig, any>({
    action: call,
    // Each call records one event or trait set on Segment's side.
    effect: "write",
    title: spec.title,
    description: spec.description,
    input: spec.input.refine(identified, NEEDS_ID),
    async run(client, args, ctx) {
      const body = {
        ...(args.user_id ? { userId: args.user_id } : {}),
        ...(args.anonymous_id ? { anonymousId: args.anonymous_id } : {}),
        ...spec.fields(args),
        ...(args.context ? { context: args.context } : {}),
        ...(args.timestamp ? { timestamp: args.timestamp } : {}),
        messageId: ctx.idempotencyKey ?? crypto.randomUUID(),
      };
      await client.request({ method: "POST", path: `/v1/${call}`, body });
      return { accepted: true, message_id: body.messageId };
    },
  });
}

export const segment = definePlatform<SegmentConfig>({
  id: "segment",
  name: "Segment",
  description: "Record events, identify users, pages and groups in Segment (HTTP Tracking API), which forwards them to your destinations.",
  category: "analytics",
  authKind: "basic",
  config: z.object({
    write_key: secret("The write key of an HTTP API source (Connections → Sources → the source → Settings → API Keys)."),
    region: z.enum(["us", "eu"]).default("us").optional().meta({ description: "eu for workspaces in Segment's EU region (events.eu1.segmentapis.com)." }),
    base_url: baseUrlField,
  }),
  secretFields: ["write_key"],
  baseUrl: (config) => config.base_url ?? HOSTS[config.region ?? "us"],
  // Basic auth: the write key as the user, an empty password (the colon is required).
  authHeaders: (config) => ({ Authorization: `Basic ${btoa(`${config.write_key}:`)}` }),
  readError: readSegmentError,
  tools: [
    trackingCall("track", {
      title: "Track a Segment event",
      description: "Records an event a user did, with its properties (POST /v1/track), e.g. 'Order Completed' with revenue and currency.",
      input: z.object({ ...Identity, event: z.string().min(1).max(200), properties: Traits }),
      fields: (args) => ({ event: args.event, ...(args.properties ? { properties: args.properties } : {}) }),
    }),
    trackingCall("identify", {
      title: "Identify a Segment user",
      description: "Ties a user to their traits, e.g. email, name, plan (POST /v1/identify).",
      input: z.object({ ...Identity, traits: Traits }),
      fields: (args) => (args.traits ? { traits: args.traits } : {}),
    }),
    trackingCall("page", {
      title: "Record a Segment page view",
      description: "Records a page a user viewed, with its name and properties such as url and referrer (POST /v1/page).",
      input: z.object({ ...Identity, name: z.string().max(200).optional(), properties: Traits }),
      fields: (args) => ({ ...(args.name ? { name: args.name } : {}), ...(args.properties ? { properties: args.properties } : {}) }),
    }),
    trackingCall("group", {
      title: "Add a user to a Segment group",
      description: "Ties a user to a group (a company, an account, a team) and the group's traits (POST /v1/group).",
      input: z.object({ ...Identity, group_id: z.string().min(1).max(255), traits: Traits }),
      fields: (args) => ({ groupId: args.group_id, ...(args.traits ? { traits: args.traits } : {}) }),
    }),
  ],
});
