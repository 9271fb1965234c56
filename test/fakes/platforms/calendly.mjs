// Calendly API v2 (developer.calendly.com/api-docs): {resource} for one object, {collection,
// pagination: {count, next_page, next_page_token, ...}} for lists paged by count and page_token;
// lists need a user or organization URI. Refusals are {title, message, details?}: an unknown
// token is 401 Unauthenticated, an unknown event 404 Resource Not Found, a cancelled event cannot
// be cancelled again (403 Permission Denied). Calendly's tests mount the API under /calendly
// (their base_url ends so), as its GET /users/me is also Notion's path in the shared fake.
import { Answer, pageOf } from "../fake-kit.mjs";

const API = "https://api.calendly.com";
const ME = `${API}/users/AAAAAAAAAAAAAAAA`;
const ORG = `${API}/organizations/BBBBBBBBBBBBBBBB`;

const refuse = (status, title, message, details) => new Answer(status, { title, message, ...(details ? { details } : {}) });
const tokenRefused = (req) =>
  String(req.headers.authorization ?? "").startsWith("Bearer cal-") ? undefined : refuse(401, "Unauthenticated", "The access token is invalid");

const EVENTS = [3, 2, 1].map((n) => ({
  uri: `${API}/scheduled_events/EV${n}000000000000`,
  name: "30 Minute Meeting",
  status: n === 1 ? "canceled" : "active",
  start_time: `2026-05-0${n}T15:00:00.000000Z`,
  end_time: `2026-05-0${n}T15:30:00.000000Z`,
  event_type: `${API}/event_types/ET1`,
  location: { type: "google_conference", status: "pushed", join_url: `https://meet.google.com/abc-${n}` },
  invitees_counter: { total: 1, active: n === 1 ? 0 : 1, limit: 1 },
  created_at: `2026-04-2${n}T10:00:00.000000Z`,
  updated_at: `2026-04-2${n}T10:00:00.000000Z`,
  event_memberships: [{ user: ME }],
  event_guests: [],
  ...(n === 1 ? { cancellation: { canceled_by: "Ada", reason: "Conflict", canceler_type: "invitee", created_at: "2026-04-25T09:00:00.000000Z" } } : {}),
}));

const INVITEE = {
  uri: `${API}/scheduled_events/EV3000000000000/invitees/IN1`,
  email: "grace@example.com",
  name: "Grace Hopper",
  status: "active",
  timezone: "Europe/Paris",
  event: EVENTS[0].uri,
  created_at: "2026-04-23T10:00:00.000000Z",
  updated_at: "2026-04-23T10:00:00.000000Z",
  questions_and_answers: [{ question: "Company size?", answer: "50-200", position: 0 }],
  tracking: { utm_campaign: "spring", utm_source: "newsletter", utm_medium: null, utm_content: null, utm_term: null, salesforce_uuid: null },
  cancel_url: "https://calendly.com/cancellations/IN1",
  reschedule_url: "https://calendly.com/reschedulings/IN1",
  canceled: false,
  rescheduled: false,
};

/** A page of a list, its next page as Calendly links it (next_page and next_page_token). */
function collection(req, items) {
  const start = req.query.page_token ? Number(req.query.page_token.replace("tok", "")) : 0;
  const { page, next } = pageOf(items, start, req.query.count ?? 20);
  const token = next === null ? null : `tok${next}`;
  return {
    collection: page,
    pagination: {
      count: page.length,
      next_page: token ? `${API}${req.path.replace("/calendly", "")}?count=${req.query.count ?? 20}&page_token=${token}` : null,
      previous_page: null,
      next_page_token: token,
      previous_page_token: null,
    },
  };
}

function ownerRefused(req) {
  if (req.query.user === ME || req.query.organization === ORG) return undefined;
  return refuse(400, "Invalid Argument", "The supplied parameters are invalid.", [{ parameter: "user", message: "must be a valid URI" }]);
}

const event = (_req, uuid) => EVENTS.find((e) => e.uri.endsWith(`/${uuid}`));

export const calendlyRoutes = [
  [
    "GET",
    /^\/calendly\/users\/me$/,
    (req) =>
      tokenRefused(req) ?? {
        resource: {
          uri: ME,
          name: "Ada Lovelace",
          slug: "ada",
          email: "ada@acme.example",
          scheduling_url: "https://calendly.com/ada",
          timezone: "Europe/London",
          current_organization: ORG,
          created_at: "2024-01-01T00:00:00.000000Z",
          updated_at: "2026-01-01T00:00:00.000000Z",
        },
      },
  ],
  [
    "GET",
    /^\/calendly\/event_types$/,
    (req) =>
      tokenRefused(req) ??
      ownerRefused(req) ??
      collection(req, [
        {
          uri: `${API}/event_types/ET1`,
          name: "30 Minute Meeting",
          slug: "30min",
          active: true,
          duration: 30,
          kind: "solo",
          scheduling_url: "https://calendly.com/ada/30min",
        },
      ]),
  ],
  [
    "GET",
    /^\/calendly\/scheduled_events$/,
    (req) => {
      const refused = tokenRefused(req) ?? ownerRefused(req);
      if (refused) return refused;
      let found = EVENTS.filter((e) => !req.query.status || e.status === req.query.status);
      if (req.query.sort === "start_time:asc") found = [...found].reverse();
      return collection(req, found);
    },
  ],
  [
    "GET",
    /^\/calendly\/scheduled_events\/([\w-]+)$/,
    (req, m) =>
      tokenRefused(req) ??
      (event(req, m[1]) ? { resource: event(req, m[1]) } : refuse(404, "Resource Not Found", "The server could not find the requested resource.")),
  ],
  [
    "GET",
    /^\/calendly\/scheduled_events\/([\w-]+)\/invitees$/,
    (req, m) =>
      tokenRefused(req) ??
      (event(req, m[1])
        ? collection(req, m[1] === "EV3000000000000" ? [INVITEE] : [])
        : refuse(404, "Resource Not Found", "The server could not find the requested resource.")),
  ],
  [
    "POST",
    /^\/calendly\/scheduled_events\/([\w-]+)\/cancellation$/,
    (req, m) => {
      const refused = tokenRefused(req);
      if (refused) return refused;
      const found = event(req, m[1]);
      if (!found) return refuse(404, "Resource Not Found", "The server could not find the requested resource.");
      if (found.status === "canceled") return refuse(403, "Permission Denied", "This event has already been canceled.");
      return new Answer(201, {
        resource: { canceled_by: "Ada Lovelace", reason: req.body?.reason ?? null, canceler_type: "host", created_at: "2026-04-26T09:00:00.000000Z" },
      });
    },
  ],
];
