// Brevo's API v3 (developers.brevo.com/reference), mounted under /brevo/v3 (Brevo's tests end
// their base_url so: /v3/contacts is a generic path): transactional email and SMS, contacts kept
// per scenario (created with 201 {id}, or updated with 204 when updateEnabled; read by email, id
// or ext_id), contact lists paged by limit and offset with their count, and Brevo's {code,
// message} refusals: 401 unauthorized for a key it does not know, 400 duplicate_parameter for a
// second contact with one email, 404 document_not_found for an unknown contact or list, 400
// missing_parameter and invalid_parameter for a bad send, 402 not_enough_credits for an SMS
// beyond the credits.
import { Answer, Store } from "../fake-kit.mjs";

const contacts = new Store();
let nextId = 20;

const refuse = (status, code, message) => new Answer(status, { code, message });

// Brevo's lists, oldest first (GET /contacts/lists sorts by creation, descending by default).
const LISTS = [
  { id: 2, name: "Newsletter", folderId: 1, totalBlacklisted: 3, totalSubscribers: 1200, uniqueSubscribers: 1203 },
  { id: 5, name: "Customers", folderId: 1, totalBlacklisted: 0, totalSubscribers: 300, uniqueSubscribers: 300 },
  { id: 7, name: "Webinar 2026", folderId: 2, totalBlacklisted: 1, totalSubscribers: 85, uniqueSubscribers: 86 },
];

function refused(req) {
  if (!String(req.headers["api-key"] ?? "").startsWith("xkeysib-")) return refuse(401, "unauthorized", "Key not found");
  return undefined;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function sendEmail(req) {
  const body = req.body ?? {};
  if (!body.templateId && !body.sender) return refuse(400, "missing_parameter", "sender is missing");
  if (!Array.isArray(body.to) || body.to.length === 0) return refuse(400, "missing_parameter", "to is missing");
  const bad = [...body.to, ...(body.cc ?? []), ...(body.bcc ?? [])].find((r) => !EMAIL.test(r?.email ?? ""));
  if (bad) return refuse(400, "invalid_parameter", "email is not valid in to");
  if (!body.templateId && !body.subject) return refuse(400, "missing_parameter", "subject is missing");
  if (!body.templateId && !body.htmlContent && !body.textContent) return refuse(400, "missing_parameter", "htmlContent is missing");
  return new Answer(201, { messageId: "<202611201000.12345678901@smtp-relay.mailin.fr>" });
}

/** A contact by email (the default), id (digits) or identifierType. */
function findContact(req, identifier) {
  const value = decodeURIComponent(identifier);
  const type = req.query.identifierType ?? (/^\d+$/.test(value) ? "contact_id" : "email_id");
  return contacts.find(req.scenario, (c) =>
    type === "contact_id"
      ? String(c.id) === value
      : type === "ext_id"
        ? c.ext_id === value
        : type === "phone_id"
          ? c.attributes.SMS === value
          : c.email === value,
  );
}

function createContact(req) {
  const body = req.body ?? {};
  if (!body.email && !body.ext_id && !body.attributes?.SMS) return refuse(400, "missing_parameter", "email, ext_id or SMS is required");
  if (body.email && !EMAIL.test(body.email)) return refuse(400, "invalid_parameter", "Invalid email address");
  const unknownList = (body.listIds ?? []).find((id) => !LISTS.some((l) => l.id === id));
  if (unknownList) return refuse(404, "document_not_found", "List ID does not exist");
  const existing = body.email && contacts.find(req.scenario, (c) => c.email === body.email);
  if (existing && !body.updateEnabled) return refuse(400, "duplicate_parameter", "Unable to create contact, email is already associated with another Contact");
  if (existing) {
    Object.assign(existing.attributes, body.attributes);
    existing.listIds = [...new Set([...existing.listIds, ...(body.listIds ?? [])])];
    return new Answer(204, "");
  }
  const at = "2026-11-20T10:00:00.000+01:00";
  const created = {
    id: ++nextId,
    email: body.email ?? null,
    ...(body.ext_id ? { ext_id: body.ext_id } : {}),
    emailBlacklisted: body.emailBlacklisted ?? false,
    smsBlacklisted: body.smsBlacklisted ?? false,
    createdAt: at,
    modifiedAt: at,
    attributes: { ...body.attributes },
    listIds: body.listIds ?? [],
    statistics: {},
  };
  contacts.add(req.scenario, created);
  return new Answer(201, { id: created.id });
}

function updateContact(req, identifier) {
  const found = findContact(req, identifier);
  if (!found) return refuse(404, "document_not_found", "Contact does not exist");
  const body = req.body ?? {};
  Object.assign(found.attributes, body.attributes);
  if (body.ext_id) found.ext_id = body.ext_id;
  if (body.emailBlacklisted !== undefined) found.emailBlacklisted = body.emailBlacklisted;
  if (body.smsBlacklisted !== undefined) found.smsBlacklisted = body.smsBlacklisted;
  found.listIds = [...new Set([...found.listIds, ...(body.listIds ?? [])])].filter((id) => !(body.unlinkListIds ?? []).includes(id));
  found.modifiedAt = "2026-11-20T10:05:00.000+01:00";
  return new Answer(204, "");
}

function getContact(req, identifier) {
  return findContact(req, identifier) ?? refuse(404, "document_not_found", "Contact does not exist");
}

function listLists(req) {
  const limit = Number(req.query.limit ?? 10);
  const offset = Number(req.query.offset ?? 0);
  if (!Number.isInteger(limit) || limit < 0 || limit > 50) return refuse(400, "out_of_range", "limit should be less than or equal to 50");
  const sorted = req.query.sort === "asc" ? LISTS : [...LISTS].reverse();
  return { lists: sorted.slice(offset, offset + limit), count: LISTS.length };
}

function addToList(req, listId) {
  if (!LISTS.some((l) => l.id === Number(listId))) return refuse(404, "document_not_found", "List ID does not exist");
  const emails = req.body?.emails ?? [];
  const success = [];
  const failure = [];
  for (const email of emails) {
    const found = contacts.find(req.scenario, (c) => c.email === email);
    if (!found || found.listIds.includes(Number(listId))) failure.push(email);
    else {
      found.listIds.push(Number(listId));
      success.push(email);
    }
  }
  if (success.length === 0) return refuse(400, "invalid_parameter", "Contact already in list and/or does not exist");
  return new Answer(201, { contacts: { success, failure } });
}

function sendSms(req) {
  const body = req.body ?? {};
  if (!body.sender || !body.recipient || !body.content) return refuse(400, "missing_parameter", "sender, recipient and content are required");
  // The fake's account has credits for France (+33) only.
  if (!String(body.recipient).replace(/^\+/, "").startsWith("33")) return refuse(402, "not_enough_credits", "Not enough credits");
  return new Answer(201, { messageId: 1511882900176220 });
}

export const brevoRoutes = [
  ["GET", /^\/brevo\/v3\/account$/, (req) => refused(req) ?? { email: "ops@acme.example", firstName: "Ada", lastName: "Admin", companyName: "Acme" }],
  ["POST", /^\/brevo\/v3\/smtp\/email$/, (req) => refused(req) ?? sendEmail(req)],
  ["POST", /^\/brevo\/v3\/contacts$/, (req) => refused(req) ?? createContact(req)],
  ["GET", /^\/brevo\/v3\/contacts\/lists$/, (req) => refused(req) ?? listLists(req)],
  ["POST", /^\/brevo\/v3\/contacts\/lists\/(\d+)\/contacts\/add$/, (req, m) => refused(req) ?? addToList(req, m[1])],
  ["PUT", /^\/brevo\/v3\/contacts\/([^/]+)$/, (req, m) => refused(req) ?? updateContact(req, m[1])],
  ["GET", /^\/brevo\/v3\/contacts\/([^/]+)$/, (req, m) => refused(req) ?? getContact(req, m[1])],
  ["POST", /^\/brevo\/v3\/transactionalSMS\/send$/, (req) => refused(req) ?? sendSms(req)],
];
