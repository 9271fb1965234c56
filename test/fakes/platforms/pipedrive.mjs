// Pipedrive's API v2 (developers.pipedrive.com/docs/api/v2): the token in x-api-token, persons and
// deals kept per scenario with {success: true, data} answers, emails and phones as [{value,
// primary, label}], deals listed by add_time with cursor pagination (additional_data.next_cursor).
// Refusals are {success: false, error, error_info}: 401 "unauthorized access", 404 "Deal not
// found", 400 for a deal whose stage does not exist.
import { Answer, pageOf, Store } from "../fake-kit.mjs";

const persons = new Store();
const deals = new Store();
const STAGES = new Set([1, 2, 3]);
const INFO = "Please check developers.pipedrive.com for more information";

const refuse = (status, error) => new Answer(status, { success: false, error, error_info: INFO, data: null, additional_data: null });
const refused = (req) => (String(req.headers["x-api-token"] ?? "").startsWith("pd-") ? undefined : refuse(401, "unauthorized access"));

let clock = 0;
const time = () => new Date(Date.UTC(2026, 3, 22, 9, 0, clock++)).toISOString().replace(".000Z", "Z");

function createPerson(req) {
  const body = req.body ?? {};
  if (!body.name) return refuse(400, "Name must be given.");
  const id = 100 + persons.list(req.scenario).length + 1;
  return {
    success: true,
    data: persons.add(req.scenario, {
      id,
      ...body,
      emails: body.emails ?? [],
      phones: body.phones ?? [],
      org_id: body.org_id ?? null,
      owner_id: body.owner_id ?? 7,
      add_time: time(),
    }),
  };
}

function updatePerson(req, id) {
  const found = persons.find(req.scenario, (p) => p.id === id);
  if (!found) return refuse(404, "Person not found");
  Object.assign(found, req.body ?? {});
  return { success: true, data: found };
}

function search(req) {
  const term = String(req.query.term ?? "").toLowerCase();
  const items = persons
    .list(req.scenario)
    .filter((p) => p.emails.some((e) => e.value.toLowerCase() === term) || p.name.toLowerCase() === term)
    .map((p) => ({
      result_score: 1,
      item: { id: p.id, type: "person", name: p.name, emails: p.emails.map((e) => e.value), phones: p.phones.map((e) => e.value), organization: null },
    }));
  return { success: true, data: { items }, additional_data: { next_cursor: null } };
}

function createDeal(req) {
  const body = req.body ?? {};
  if (body.stage_id !== undefined && !STAGES.has(body.stage_id)) return refuse(400, `Stage with id ${body.stage_id} does not exist.`);
  const id = deals.list(req.scenario).length + 1;
  const deal = {
    id,
    title: body.title,
    value: body.value ?? 0,
    currency: body.currency ?? "USD",
    status: body.status ?? "open",
    stage_id: body.stage_id ?? 1,
    pipeline_id: 1,
    person_id: body.person_id ?? null,
    org_id: body.org_id ?? null,
    expected_close_date: body.expected_close_date ?? null,
    add_time: time(),
  };
  return { success: true, data: deals.add(req.scenario, deal) };
}

function updateDeal(req, id) {
  const found = deals.find(req.scenario, (d) => d.id === id);
  if (!found) return refuse(404, "Deal not found");
  if (req.body?.stage_id !== undefined && !STAGES.has(req.body.stage_id)) return refuse(400, `Stage with id ${req.body.stage_id} does not exist.`);
  Object.assign(found, req.body ?? {});
  return { success: true, data: found };
}

function listDeals(req) {
  // Store lists newest first; sort_direction=asc would be the other way.
  let all = deals.list(req.scenario).filter((d) => !req.query.status || d.status === req.query.status);
  if (req.query.sort_direction !== "desc") all = [...all].reverse();
  const start = req.query.cursor ? Number(Buffer.from(req.query.cursor, "base64").toString()) : 0;
  const { page, next } = pageOf(all, start, req.query.limit ?? 100);
  return { success: true, data: page, additional_data: { next_cursor: next === null ? null : Buffer.from(String(next)).toString("base64") } };
}

export const pipedriveRoutes = [
  [
    "GET",
    /^\/api\/v1\/users\/me$/,
    (req) => refused(req) ?? { success: true, data: { id: 7, name: "Ada Seller", email: "ada@acme.example", company_name: "Acme" } },
  ],
  ["POST", /^\/api\/v2\/persons$/, (req) => refused(req) ?? createPerson(req)],
  ["GET", /^\/api\/v2\/persons\/search$/, (req) => refused(req) ?? search(req)],
  ["PATCH", /^\/api\/v2\/persons\/(\d+)$/, (req, m) => refused(req) ?? updatePerson(req, Number(m[1]))],
  ["POST", /^\/api\/v2\/deals$/, (req) => refused(req) ?? createDeal(req)],
  ["PATCH", /^\/api\/v2\/deals\/(\d+)$/, (req, m) => refused(req) ?? updateDeal(req, Number(m[1]))],
  ["GET", /^\/api\/v2\/deals$/, (req) => refused(req) ?? listDeals(req)],
];
