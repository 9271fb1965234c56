// Klaviyo's API (developers.klaviyo.com/en/reference/api_overview), mounted under /klaviyo/api
// (Klaviyo's tests end their base_url so: /api/lists and /api/events are generic paths): JSON:API
// documents in and out, profiles kept per scenario (profile-import creates with 201 or updates
// with 200), Get Profiles filtered by email and sorted newest first with links.next cursors, ten
// lists a page, events and subscription jobs accepted with an empty 202, list membership with an
// empty 204, and Klaviyo's refusals {errors: [{id, status, code, title, detail, source}]}: 401
// not_authenticated for a key it does not know, 400 invalid for a bad field or a missing
// revision, 404 not_found for an unknown list, 415 for a body that is not JSON:API.
import { Answer, Store, b64, unb64 } from "../fake-kit.mjs";

const REVISION = "2026-07-15";
const HOST = "https://a.klaviyo.com/api";

const profiles = new Store();
const events = new Store();
const memberships = new Store();
let next = 0;

const error = (status, code, title, detail, source) =>
  new Answer(status, { errors: [{ id: "9b7c1c3e-4a0f-4c8e-8d2e-6f1a2b3c4d5e", status, code, title, detail, ...(source ? { source } : {}), meta: {} }] });
const invalid = (detail, pointer) => error(400, "invalid", "Invalid input.", detail, { pointer });

// Eleven lists, oldest first: Get Lists pages them ten at a time.
const LISTS = Array.from({ length: 11 }, (_, i) => ({
  type: "list",
  id: `Lst${String(i + 1).padStart(3, "0")}`,
  attributes: {
    name: i === 0 ? "Newsletter" : `List ${i + 1}`,
    created: `2026-0${1 + Math.floor(i / 4)}-${String(10 + i).padStart(2, "0")}T09:00:00+00:00`,
    updated: `2026-0${1 + Math.floor(i / 4)}-${String(10 + i).padStart(2, "0")}T09:00:00+00:00`,
    opt_in_process: i === 0 ? "double_opt_in" : "single_opt_in",
  },
  links: { self: `${HOST}/lists/Lst${String(i + 1).padStart(3, "0")}/` },
}));

function refused(req) {
  if (!/^Klaviyo-API-Key pk_\w+$/.test(String(req.headers.authorization ?? "")))
    return error(401, "not_authenticated", "Authentication credentials were not provided.", "Missing or invalid private key.", { pointer: "/data/" });
  if (req.headers.revision !== REVISION) return error(400, "invalid", "Invalid input.", "Invalid or missing revision header.", { parameter: "revision" });
  if (req.body !== undefined && req.headers["content-type"] !== "application/vnd.api+json")
    return error(415, "unsupported_media_type", "Unsupported media type.", `Unsupported media type "${req.headers["content-type"]}" in request.`);
  return undefined;
}

const EMAIL = /^[^\s@"]+@[^\s@"]+\.[^\s@"]+$/;

function importProfile(req) {
  const data = req.body?.data;
  if (data?.type !== "profile") return invalid("The type of the resource must be profile.", "/data/type");
  const attributes = data.attributes ?? {};
  if (attributes.email !== undefined && !EMAIL.test(attributes.email)) return invalid("Invalid email address", "/data/attributes/email");
  const found = data.id
    ? profiles.find(req.scenario, (p) => p.id === data.id)
    : profiles.find(
        req.scenario,
        (p) =>
          (attributes.email && p.attributes.email === attributes.email) ||
          (attributes.external_id && p.attributes.external_id === attributes.external_id) ||
          (attributes.phone_number && p.attributes.phone_number === attributes.phone_number),
      );
  if (data.id && !found) return error(404, "not_found", "Not found.", `A profile with id ${data.id} does not exist.`, { pointer: "/data/id" });
  if (found) {
    const { properties, location, ...fields } = attributes;
    Object.assign(found.attributes, fields, {
      properties: { ...found.attributes.properties, ...properties },
      location: { ...found.attributes.location, ...location },
      updated: "2026-11-20T10:05:00+00:00",
    });
    return { data: found };
  }
  const n = ++next;
  const at = `2026-11-20T10:${String(n).padStart(2, "0")}:00+00:00`;
  const created = {
    type: "profile",
    id: `01JD${String(n).padStart(22, "0")}`,
    attributes: {
      email: null,
      phone_number: null,
      external_id: null,
      first_name: null,
      last_name: null,
      organization: null,
      title: null,
      locale: null,
      ...attributes,
      location: { ...attributes.location },
      properties: { ...attributes.properties },
      created: at,
      updated: at,
    },
    links: { self: `${HOST}/profiles/01JD${String(n).padStart(22, "0")}/` },
  };
  return new Answer(201, { data: profiles.add(req.scenario, created) });
}

/** Get Profiles: filter=equals(email,"…") only, sort by created (either way), page[size] ≤ 100. */
function listProfiles(req) {
  const { filter, sort = "id" } = req.query;
  const size = Number(req.query["page[size]"] ?? 20);
  if (!Number.isInteger(size) || size < 1 || size > 100)
    return error(400, "invalid", "Invalid input.", "page[size] must be between 1 and 100.", { parameter: "page[size]" });
  let items = [...profiles.list(req.scenario)].reverse();
  if (filter !== undefined) {
    const m = /^equals\(email,"([^"]*)"\)$/.exec(filter);
    if (!m) return error(400, "invalid", "Invalid input.", `Invalid filter provided: ${filter}`, { parameter: "filter" });
    items = items.filter((p) => p.attributes.email === m[1]);
  }
  if (sort === "-created") items.reverse();
  else if (sort !== "created" && sort !== "id") return error(400, "invalid", "Invalid input.", `'${sort}' is not a valid sort field.`, { parameter: "sort" });
  const start = req.query["page[cursor]"] ? Number(unb64(req.query["page[cursor]"]).split("::")[1]) : 0;
  const page = items.slice(start, start + size);
  const more = start + size < items.length;
  const link = (cursor) => `${HOST}/profiles/?page%5Bcursor%5D=${encodeURIComponent(cursor)}&page%5Bsize%5D=${size}&sort=${sort}`;
  return { data: page, links: { self: `${HOST}/profiles/`, next: more ? link(b64(`next::${start + size}`)) : null, prev: null } };
}

function createEvent(req) {
  const attributes = req.body?.data?.attributes ?? {};
  const metric = attributes.metric?.data?.attributes?.name;
  if (!metric) return invalid("A metric name is required.", "/data/attributes/metric/data/attributes/name");
  const who = attributes.profile?.data?.attributes ?? {};
  if (!who.email && !who.phone_number && !who.external_id && !attributes.profile?.data?.id)
    return invalid("One of email, phone_number, external_id or id is required to identify a profile.", "/data/attributes/profile/data/attributes");
  if (who.email !== undefined && !EMAIL.test(who.email)) return invalid("Invalid email address", "/data/attributes/profile/data/attributes/email");
  events.add(req.scenario, attributes);
  return new Answer(202, "");
}

function listLists(req) {
  const sorted = req.query.sort === "-created" ? [...LISTS].reverse() : LISTS;
  const start = req.query["page[cursor]"] ? Number(unb64(req.query["page[cursor]"]).split("::")[1]) : 0;
  const more = start + 10 < sorted.length;
  const cursor = b64(`next::${start + 10}`);
  return {
    data: sorted.slice(start, start + 10),
    links: {
      self: `${HOST}/lists/`,
      next: more ? `${HOST}/lists/?page%5Bcursor%5D=${encodeURIComponent(cursor)}&sort=${req.query.sort ?? "id"}` : null,
      prev: null,
    },
  };
}

const knownList = (id) => LISTS.some((l) => l.id === id);
const noList = (id, pointer) => error(404, "not_found", "Not found.", `A list with id ${id} does not exist.`, pointer ? { pointer } : undefined);

function addToList(req, listId) {
  if (!knownList(listId)) return noList(listId);
  const data = req.body?.data;
  if (!Array.isArray(data) || data.some((d) => d?.type !== "profile" || !d.id)) return invalid("Each member must be a profile with an id.", "/data");
  memberships.add(req.scenario, { listId, ids: data.map((d) => d.id) });
  return new Answer(204, "");
}

function subscribe(req) {
  const data = req.body?.data;
  if (data?.type !== "profile-subscription-bulk-create-job")
    return invalid("The type of the resource must be profile-subscription-bulk-create-job.", "/data/type");
  const listId = data.relationships?.list?.data?.id;
  if (listId && !knownList(listId)) return noList(listId, "/data/relationships/list/data/id");
  const list = data.attributes?.profiles?.data ?? [];
  for (const [i, p] of list.entries())
    if (p.attributes?.email !== undefined && !EMAIL.test(p.attributes.email))
      return invalid("Invalid email address", `/data/attributes/profiles/data/${i}/attributes/email`);
  return new Answer(202, "");
}

export const klaviyoRoutes = [
  [
    "GET",
    /^\/klaviyo\/api\/accounts$/,
    (req) =>
      refused(req) ?? {
        data: [
          {
            type: "account",
            id: "AbC123",
            attributes: {
              test_account: false,
              contact_information: { default_sender_name: "Acme", default_sender_email: "news@acme.example", organization_name: "Acme Outfitters" },
              timezone: "Europe/Paris",
              preferred_currency: "EUR",
              public_api_key: "AbC123",
            },
          },
        ],
        links: { self: `${HOST}/accounts/` },
      },
  ],
  ["POST", /^\/klaviyo\/api\/profile-import$/, (req) => refused(req) ?? importProfile(req)],
  ["GET", /^\/klaviyo\/api\/profiles$/, (req) => refused(req) ?? listProfiles(req)],
  ["POST", /^\/klaviyo\/api\/events$/, (req) => refused(req) ?? createEvent(req)],
  ["GET", /^\/klaviyo\/api\/lists$/, (req) => refused(req) ?? listLists(req)],
  ["POST", /^\/klaviyo\/api\/lists\/(\w+)\/relationships\/profiles$/, (req, m) => refused(req) ?? addToList(req, m[1])],
  ["POST", /^\/klaviyo\/api\/profile-subscription-bulk-create-jobs$/, (req) => refused(req) ?? subscribe(req)],
];
