// The Zendesk Support API (developer.zendesk.com/api-reference/ticketing/tickets/tickets):
// {ticket: {...}} in and out, Basic auth as "<email>/token:<api token>", tickets kept per
// scenario with growing ids, cursor pagination (page[size], page[after]; meta.has_more,
// after_cursor; links.next) sorted by -id. Refusals as Zendesk words them: 401 {error: "Couldn't
// authenticate you"}, 404 RecordNotFound, 422 RecordInvalid with details per field (a closed
// ticket cannot be updated), and 429 with Retry-After for the subject "rate me".
import { Answer, basicAuth, pageOf, Store } from "../fake-kit.mjs";

const tickets = new Store();
const NOW = "2026-04-22T09:00:00Z";

function seeded(scenario) {
  if (!tickets.list(scenario).length)
    for (const id of [1, 2])
      tickets.add(scenario, {
        id,
        url: `https://acme.zendesk.com/api/v2/tickets/${id}.json`,
        subject: `Earlier question ${id}`,
        description: "How do I export?",
        status: id === 1 ? "closed" : "open",
        priority: "normal",
        type: "question",
        requester_id: 900 + id,
        assignee_id: null,
        tags: ["export"],
        external_id: null,
        created_at: `2026-04-0${id}T09:00:00Z`,
        updated_at: `2026-04-0${id}T09:00:00Z`,
      });
  return tickets.list(scenario);
}

function refused(req) {
  const auth = basicAuth(req);
  if (!auth?.user.endsWith("/token") || !auth.password.startsWith("zd-")) return new Answer(401, { error: "Couldn't authenticate you" });
  return undefined;
}

const notFound = () => new Answer(404, { error: "RecordNotFound", description: "Not found" });

function create(req) {
  const body = req.body?.ticket ?? {};
  if (body.subject === "rate me") return new Answer(429, { error: "TooManyRequests", description: "Rate limit exceeded" }, { "Retry-After": "42" });
  const list = seeded(req.scenario);
  const id = Math.max(...list.map((t) => t.id)) + 1;
  const ticket = tickets.add(req.scenario, {
    id,
    url: `https://acme.zendesk.com/api/v2/tickets/${id}.json`,
    subject: body.subject,
    description: body.comment?.body,
    status: body.status ?? "new",
    priority: body.priority ?? null,
    type: body.type ?? null,
    requester_id: 1000 + id,
    assignee_id: null,
    tags: body.tags ?? [],
    external_id: body.external_id ?? null,
    created_at: NOW,
    updated_at: NOW,
  });
  return new Answer(201, { ticket, audit: { id: 5000 + id, ticket_id: id, created_at: NOW, events: [] } });
}

function update(req, id) {
  const ticket = seeded(req.scenario).find((t) => t.id === id);
  if (!ticket) return notFound();
  if (ticket.status === "closed")
    return new Answer(422, {
      error: "RecordInvalid",
      description: "Record validation errors",
      details: { status: [{ description: "Status: closed prevents ticket update", error: "ClosedPreventsUpdate" }] },
    });
  const { comment, ...fields } = req.body?.ticket ?? {};
  Object.assign(ticket, fields, { updated_at: "2026-04-22T10:00:00Z" });
  return {
    ticket,
    audit: {
      id: 6000 + id,
      ticket_id: id,
      created_at: ticket.updated_at,
      events: comment ? [{ type: "Comment", body: comment.body, public: comment.public }] : [],
    },
  };
}

function list(req) {
  const all = [...seeded(req.scenario)].sort((a, b) => (req.query.sort === "-id" ? b.id - a.id : a.id - b.id));
  const size = Number(req.query["page[size]"] ?? 100);
  const start = req.query["page[after]"] ? all.findIndex((t) => String(t.id) === Buffer.from(req.query["page[after]"], "base64").toString()) + 1 : 0;
  const { page, next } = pageOf(all, start, size);
  const after = page.length ? Buffer.from(String(page[page.length - 1].id)).toString("base64") : null;
  return {
    tickets: page,
    meta: { has_more: next !== null, after_cursor: after, before_cursor: null },
    links: { next: next === null ? null : `https://acme.zendesk.com/api/v2/tickets.json?page[size]=${size}&page[after]=${after}`, prev: null },
  };
}

export const zendeskRoutes = [
  ["GET", /^\/api\/v2\/users\/me\.json$/, (req) => refused(req) ?? { user: { id: 7, name: "Ada Agent", email: "ada@acme.example", role: "admin" } }],
  ["POST", /^\/api\/v2\/tickets\.json$/, (req) => refused(req) ?? create(req)],
  ["GET", /^\/api\/v2\/tickets\.json$/, (req) => refused(req) ?? list(req)],
  [
    "GET",
    /^\/api\/v2\/tickets\/(\d+)\.json$/,
    (req, m) => refused(req) ?? ((t) => (t ? { ticket: t } : notFound()))(seeded(req.scenario).find((t) => t.id === Number(m[1]))),
  ],
  ["PUT", /^\/api\/v2\/tickets\/(\d+)\.json$/, (req, m) => refused(req) ?? update(req, Number(m[1]))],
];
