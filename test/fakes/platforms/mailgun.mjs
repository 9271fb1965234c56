// Mailgun's API (documentation.mailgun.com): Basic auth as api:<key>, form-encoded writes, the
// domain in the path, {message} errors (a wrong key: 401 with the text "Forbidden").
// Tags are the form field o:tag, repeated once per tag ("Tagging"): an indexed o:tag[0] is an
// unknown field and tags nothing. Events are paged by the token at the end of the paging URLs
// (GET /v3/<domain>/events/<token>), which carries the first request's filters and limit; `page`
// is no parameter of the events API, so a request with it is answered the first page again.
// Mailgun links a next page even from the last one: the list ends with an empty page.
import { Answer, Store, basicAuth, formOf } from "../fake-kit.mjs";

const DOMAIN = "mg.acme.test";
const EVENTS = [3, 2, 1].map((n) => ({
  id: `ev-${n}`,
  event: n === 1 ? "failed" : "delivered",
  recipient: `user${n}@example.com`,
  timestamp: 1763800000 + n,
  tags: [],
  severity: n === 1 ? "permanent" : undefined,
  "delivery-status": { message: n === 1 ? "550 5.1.1 The email account does not exist" : "" },
  message: { headers: { "message-id": `2026${n}.abc@mg.acme.test` } },
}));

/** The "accepted" events of the messages a scenario sent, newest first, ahead of the fixed ones. */
const accepted = new Store();

/** The domain's key; any other is "Forbidden". */
const authorized = (req) => basicAuth(req)?.user === "api" && String(basicAuth(req)?.password).startsWith("key-");
const forbidden = () => new Answer(401, "Forbidden", { "Content-Type": "text/plain" });
const unknownDomain = (domain) => new Answer(404, { message: `Domain not found: ${domain}` });

function send(req, m) {
  if (!authorized(req)) return forbidden();
  if (m[1] !== DOMAIN) return unknownDomain(m[1]);
  const form = formOf(req);
  if (!form.from) return new Answer(400, { message: "from parameter is missing" });
  if (!form.text && !form.html && !form.template) return new Answer(400, { message: "Need at least one of 'text', 'html' or 'template' parameters specified" });
  const n = accepted.list(req.scenario).length + 1;
  const id = `20261122090000.${n}.ABCDEF@mg.acme.test`;
  accepted.add(req.scenario, {
    id: `accepted-${n}`,
    event: "accepted",
    recipient: String(form.to).split(",")[0].trim(),
    timestamp: 1763800100 + n,
    // Only the repeated o:tag field counts; o:tag[0] and the like are ignored as Mailgun ignores them.
    tags: new URLSearchParams(req.raw ?? "").getAll("o:tag").slice(0, 3),
    message: { headers: { "message-id": id } },
  });
  return { id: `<${id}>`, message: "Queued. Thank you." };
}

const tokenOf = (state) => Buffer.from(JSON.stringify(state)).toString("base64url");
function stateOf(token) {
  try {
    const state = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
    return Number.isInteger(state.start) && Number.isInteger(state.limit) ? state : null;
  } catch {
    return null;
  }
}

/** A page of the scenario's events from `start`, with Mailgun's four paging URLs. */
function eventsPage(req, state) {
  const found = [...accepted.list(req.scenario), ...EVENTS].filter(
    (e) => (!state.event || e.event === state.event) && (!state.recipient || e.recipient === state.recipient),
  );
  const url = (start) => `https://api.mailgun.net/v3/${DOMAIN}/events/${tokenOf({ ...state, start })}`;
  const lastStart = Math.max(0, Math.floor((found.length - 1) / state.limit) * state.limit);
  return {
    items: found.slice(state.start, state.start + state.limit),
    paging: { first: url(0), last: url(lastStart), next: url(state.start + state.limit), previous: url(Math.max(0, state.start - state.limit)) },
  };
}

function firstEvents(req, m) {
  if (!authorized(req)) return forbidden();
  if (m[1] !== DOMAIN) return unknownDomain(m[1]);
  const limit = Number(req.query.limit ?? 100);
  if (!Number.isInteger(limit) || limit < 1 || limit > 300) return new Answer(400, { message: "'limit' must be an integer between 1 and 300" });
  // Anything else in the query (a `page`, say) is not Mailgun's and changes nothing: the first page again.
  return eventsPage(req, { start: 0, limit, event: req.query.event, recipient: req.query.recipient });
}

function eventsByToken(req, m) {
  if (!authorized(req)) return forbidden();
  if (m[1] !== DOMAIN) return unknownDomain(m[1]);
  const state = stateOf(decodeURIComponent(m[2]));
  if (!state) return new Answer(400, { message: "Invalid page token" });
  return eventsPage(req, state);
}

function addMember(req, m) {
  const form = formOf(req);
  const list = decodeURIComponent(m[1]);
  if (list !== "news@mg.acme.test") return new Answer(404, { message: "Mailing list news2@mg.acme.test not found".replace("news2@mg.acme.test", list) });
  if (form.upsert !== "yes" && form.address === "ada@example.com") return new Answer(400, { message: `Address already exists '${form.address}'` });
  return {
    member: { address: form.address, name: form.name ?? "", subscribed: form.subscribed === "yes", vars: JSON.parse(form.vars ?? "{}") },
    message: "Mailing list member has been created",
  };
}

export const mailgunRoutes = [
  ["GET", /^\/v3\/domains\/([\w.-]+)$/, (_req, m) => ({ domain: { name: m[1], state: "active" } })],
  ["POST", /^\/v3\/([\w.-]+)\/messages$/, send],
  ["GET", /^\/v3\/([\w.-]+)\/events$/, firstEvents],
  ["GET", /^\/v3\/([\w.-]+)\/events\/([^/]+)$/, eventsByToken],
  ["POST", /^\/v3\/lists\/([^/]+)\/members$/, addMember],
];
