// The Intercom REST API (developers.intercom.com/docs/references/rest-api): contacts created,
// updated and searched per scenario, admin-initiated messages, and {type: "error.list",
// request_id, errors: [{code, message}]} refusals: 401 unauthorized for a token it does not know,
// 409 conflict for a second contact with the same email, 404 not_found for an unknown contact,
// 400 parameter_invalid for an email message without a subject. Intercom's tests mount the API
// under /intercom (their base_url ends so): /me and /contacts are other platforms' paths too.
import { Answer, Store } from "../fake-kit.mjs";

const contacts = new Store();
let next = 0;

const refuse = (status, code, message) => new Answer(status, { type: "error.list", request_id: "000on04ngpaseqdp6u80", errors: [{ code, message }] });

function refused(req) {
  if (!String(req.headers.authorization ?? "").startsWith("Bearer ic-")) return refuse(401, "unauthorized", "Access Token Invalid");
  if (req.headers["intercom-version"] !== "2.11") return refuse(400, "intercom_version_invalid", "Requested version is not valid");
  return undefined;
}

function create(req) {
  const body = req.body ?? {};
  // Intercom refuses a second user with an email; a lead may share a user's.
  const role = body.role ?? "user";
  const existing = body.email && contacts.find(req.scenario, (c) => c.email === body.email && c.role === role);
  if (existing) return refuse(409, "conflict", `A contact matching those details already exists with id=${existing.id}`);
  const at = 1745312400 + next;
  return contacts.add(req.scenario, {
    type: "contact",
    id: `6762f0${(++next).toString(16).padStart(18, "0")}`,
    workspace_id: "abc123de",
    external_id: body.external_id ?? null,
    role: body.role ?? "user",
    email: body.email ?? null,
    phone: body.phone ?? null,
    name: body.name ?? null,
    custom_attributes: body.custom_attributes ?? {},
    created_at: at,
    updated_at: at,
  });
}

function update(req, id) {
  const found = contacts.find(req.scenario, (c) => c.id === id);
  if (!found) return refuse(404, "not_found", "User Not Found");
  const { custom_attributes, ...fields } = req.body ?? {};
  Object.assign(found, fields, { custom_attributes: { ...found.custom_attributes, ...custom_attributes }, updated_at: found.updated_at + 60 });
  return found;
}

/** Search pages with an opaque starting_after (here the next offset, encoded) and hands the next one out in pages.next. */
function search(req) {
  const value = req.body?.query?.value;
  const found = contacts.list(req.scenario).filter((c) => c.email === value);
  const perPage = req.body?.pagination?.per_page ?? 50;
  const after = req.body?.pagination?.starting_after;
  const start = after ? JSON.parse(Buffer.from(after, "base64").toString())[0] : 0;
  const data = found.slice(start, start + perPage);
  const more = start + perPage < found.length;
  const page = Math.floor(start / perPage) + 1;
  const pages = { type: "pages", page, per_page: perPage, total_pages: Math.max(1, Math.ceil(found.length / perPage)) };
  if (more) pages.next = { per_page: perPage, starting_after: Buffer.from(JSON.stringify([start + perPage])).toString("base64") };
  return { type: "list", data, total_count: found.length, pages };
}

function message(req) {
  const body = req.body ?? {};
  if (body.message_type === "email" && !body.subject) return refuse(400, "parameter_invalid", "Subject is required for email messages");
  if (!contacts.find(req.scenario, (c) => c.id === body.to?.id)) return refuse(404, "not_found", "User Not Found");
  return { type: "user_message", id: "403918396", created_at: 1745312500, body: body.body, message_type: body.message_type, conversation_id: "512" };
}

export const intercomRoutes = [
  ["GET", /^\/intercom\/me$/, (req) => refused(req) ?? { type: "admin", id: "991267", name: "Ada Admin", email: "ada@acme.example", app: { name: "Acme" } }],
  ["POST", /^\/intercom\/contacts$/, (req) => refused(req) ?? create(req)],
  ["POST", /^\/intercom\/contacts\/search$/, (req) => refused(req) ?? search(req)],
  ["PUT", /^\/intercom\/contacts\/(\w+)$/, (req, m) => refused(req) ?? update(req, m[1])],
  ["POST", /^\/intercom\/messages$/, (req) => refused(req) ?? message(req)],
  [
    "GET",
    /^\/intercom\/admins$/,
    (req) =>
      refused(req) ?? {
        type: "admin.list",
        admins: [{ type: "admin", id: "991267", name: "Ada Admin", email: "ada@acme.example", away_mode_enabled: false, has_inbox_seat: true }],
      },
  ],
];
