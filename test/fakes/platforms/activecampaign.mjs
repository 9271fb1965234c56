// ActiveCampaign's API v3 (developers.activecampaign.com/reference), mounted under /api/3 as on an
// account's host: contacts created and synced per scenario (ids as strings, cdate/udate), listed
// with limit/offset, newest first with orders[cdate]=DESC; tags and list subscriptions; deals with
// their value in cents; lists. It fails as ActiveCampaign does: 403 {message} for an Api-Token it
// does not know, 422 {errors: [{title, detail, code, source}]} for a duplicate email or a deal
// without pipeline or stage, 404 {message: "No Result found for Subscriber with id …"} for an
// unknown contact.
import { Answer, Store, pageOf } from "../fake-kit.mjs";

const contacts = new Store();
const LISTS = [
  { stringid: "newsletter", userid: "1", name: "Newsletter", cdate: "2026-01-05T10:00:00-06:00", id: "1" },
  { stringid: "customers", userid: "1", name: "Customers", cdate: "2026-02-11T10:00:00-06:00", id: "2" },
  { stringid: "webinar", userid: "1", name: "Webinar", cdate: "2026-03-20T10:00:00-06:00", id: "3" },
];
const TAGS = new Set(["20", "21"]);
const STAGES = { 1: "1", 2: "1", 3: "2" };

const forbidden = () => new Answer(403, { message: "You do not have permission to access this resource" });
const invalid = (title, code, pointer, detail = "") => new Answer(422, { errors: [{ title, detail, code, source: { pointer } }] });
const noSubscriber = (id) => new Answer(404, { message: `No Result found for Subscriber with id ${id}` });

const refused = (req) => (/^ac-\w+$/.test(String(req.headers["api-token"] ?? "")) ? undefined : forbidden());

/** A timestamp in the account's zone, as ActiveCampaign writes them; n keeps them apart. */
const at = (n) => `2026-04-22T09:${String(n % 60).padStart(2, "0")}:00-05:00`;

const links = (id) => ({
  contactLists: `https://acme.api-us1.com/api/3/contacts/${id}/contactLists`,
  contactTags: `https://acme.api-us1.com/api/3/contacts/${id}/contactTags`,
});

function write(req, { upsert }) {
  const given = req.body?.contact ?? {};
  if (!given.email) return invalid("Contact Email Address is not valid.", "email_invalid", "/data/attributes/email");
  const email = String(given.email).toLowerCase();
  const existing = contacts.find(req.scenario, (c) => c.email.toLowerCase() === email);
  if (existing && !upsert) return invalid("Email address already exists in the system.", "duplicate", "/data/attributes/email");
  const fields = Object.fromEntries(["firstName", "lastName", "phone"].filter((k) => given[k] !== undefined).map((k) => [k, given[k]]));
  const values = (given.fieldValues ?? []).map((v, i) => ({ contact: "", field: String(v.field), value: v.value, id: String(i + 1) }));
  if (existing) {
    Object.assign(existing, fields, { udate: at(contacts.list(req.scenario).length + 30) });
    existing.fieldValues = [...existing.fieldValues.filter((v) => !values.some((n) => n.field === v.field)), ...values];
    return { fieldValues: existing.fieldValues, contact: shown(existing) };
  }
  const n = contacts.list(req.scenario).length + 1;
  const id = String(110 + n);
  const created = contacts.add(req.scenario, {
    email: given.email,
    firstName: "",
    lastName: "",
    phone: "",
    ...fields,
    cdate: at(n),
    udate: at(n),
    orgid: "",
    fieldValues: values.map((v) => ({ ...v, contact: id })),
    id,
  });
  return new Answer(201, { fieldValues: created.fieldValues, contact: shown(created) });
}

const shown = ({ fieldValues, ...c }) => ({ ...c, links: links(c.id), organization: "" });

function list(req) {
  const q = req.query;
  let found = contacts.list(req.scenario).filter((c) => !q.email || c.email.toLowerCase() === q.email.toLowerCase());
  // The Store keeps the newest first; without orders[cdate]=DESC ActiveCampaign lists by id, oldest first.
  if (q["orders[cdate]"] !== "DESC") found = [...found].reverse();
  const limit = Math.min(Number(q.limit) || 20, 100);
  const { page } = pageOf(found, q.offset, limit);
  return { scoreValues: [], contacts: page.map(shown), meta: { total: String(found.length), page_input: { limit, offset: Number(q.offset) || 0 } } };
}

function read(req, id) {
  const found = contacts.find(req.scenario, (c) => c.id === id);
  if (!found) return noSubscriber(id);
  return { contactAutomations: [], contactLists: [], deals: [], fieldValues: found.fieldValues, geoIps: [], contact: shown(found) };
}

function tag(req) {
  const { contact, tag: tagId } = req.body?.contactTag ?? {};
  if (!contacts.find(req.scenario, (c) => c.id === String(contact)))
    return new Answer(404, { errors: [{ status: 404, title: "Not Found", detail: "Contact not found" }] });
  if (!TAGS.has(String(tagId))) return new Answer(404, { errors: [{ status: 404, title: "Not Found", detail: "Tag not found" }] });
  return new Answer(201, {
    contactTag: { cdate: "2026-04-22T09:30:00-05:00", contact: String(contact), id: "7", links: { contact: "/7/contact", tag: "/7/tag" }, tag: String(tagId) },
  });
}

function subscribe(req) {
  const { contact, list: listId, status } = req.body?.contactList ?? {};
  const found = contacts.find(req.scenario, (c) => c.id === String(contact));
  if (!found) return noSubscriber(contact);
  if (!LISTS.some((l) => l.id === String(listId))) return new Answer(404, { message: `No Result found for List with id ${listId}` });
  return {
    contacts: [shown(found)],
    contactList: { contact: String(contact), list: String(listId), form: null, seriesid: "0", sdate: "2026-04-22T09:31:00-05:00", status, id: "12" },
  };
}

function deal(req) {
  const d = req.body?.deal ?? {};
  if (!d.title) return invalid("Deal title is required.", "field_missing", "/data/attributes/title");
  if (!d.group && !d.stage) return invalid("Deal pipeline or stage is required.", "field_missing", "/data/attributes/stage");
  if (d.stage && !STAGES[d.stage]) return invalid("Stage is invalid.", "field_invalid", "/data/attributes/stage");
  const group = d.group ?? STAGES[d.stage];
  return new Answer(201, {
    contacts: [],
    deal: {
      hash: "dx60eh125",
      owner: String(d.owner ?? "1"),
      contact: d.contact ? String(d.contact) : null,
      group: String(group),
      stage: String(d.stage ?? "1"),
      title: d.title,
      description: d.description ?? "",
      percent: "0",
      cdate: "2026-04-22T09:32:00-05:00",
      mdate: "2026-04-22T09:32:00-05:00",
      value: String(d.value),
      currency: d.currency,
      status: 0,
      id: "4228",
    },
  });
}

export const activecampaignRoutes = [
  [
    "GET",
    /^\/api\/3\/users\/me$/,
    (req) => refused(req) ?? { user: { username: "ada", firstName: "Ada", lastName: "Admin", email: "ada@acme.example", id: "1" } },
  ],
  ["POST", /^\/api\/3\/contact\/sync$/, (req) => refused(req) ?? write(req, { upsert: true })],
  ["POST", /^\/api\/3\/contacts$/, (req) => refused(req) ?? write(req, { upsert: false })],
  ["GET", /^\/api\/3\/contacts$/, (req) => refused(req) ?? list(req)],
  ["GET", /^\/api\/3\/contacts\/(\d+)$/, (req, m) => refused(req) ?? read(req, m[1])],
  ["POST", /^\/api\/3\/contactTags$/, (req) => refused(req) ?? tag(req)],
  ["POST", /^\/api\/3\/contactLists$/, (req) => refused(req) ?? subscribe(req)],
  ["POST", /^\/api\/3\/deals$/, (req) => refused(req) ?? deal(req)],
  [
    "GET",
    /^\/api\/3\/lists$/,
    (req) =>
      refused(req) ?? { lists: pageOf(LISTS, req.query.offset, Math.min(Number(req.query.limit) || 20, 100)).page, meta: { total: String(LISTS.length) } },
  ],
];
