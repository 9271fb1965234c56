// HubSpot CRM objects beyond contacts (developers.hubspot.com/docs/api/crm/…): deals, companies
// and notes kept per scenario, created with {properties, associations}; an unknown deal stage is
// HubSpot's 400 VALIDATION_ERROR (INVALID_OPTION); a static list's memberships. Contacts live in
// platform-fake.mjs.
import { Answer, Store, pageOf } from "../fake-kit.mjs";

const STAGES = ["appointmentscheduled", "qualifiedtobuy", "presentationscheduled", "closedwon", "closedlost"];
const objects = { deals: new Store(), companies: new Store(), notes: new Store() };
let serial = 0;

const hubspotError = (status, category, message) =>
  new Answer(status, { status: "error", message, correlationId: "8b3c1f2e-5a6d-4e7f-9a0b-1c2d3e4f5a6b", category });

function invalidStage(properties) {
  const stage = properties?.dealstage;
  if (stage === undefined || STAGES.includes(stage)) return undefined;
  const detail = [
    { isValid: false, message: `${stage} was not one of the allowed options: [${STAGES.join(", ")}]`, error: "INVALID_OPTION", name: "dealstage" },
  ];
  return hubspotError(400, "VALIDATION_ERROR", `Property values were not valid: ${JSON.stringify(detail)}`);
}

function create(kind) {
  return (req) => {
    const invalid = kind === "deals" && invalidStage(req.body?.properties);
    if (invalid) return invalid;
    serial += 1;
    const now = new Date(Date.UTC(2026, 10, 22, 9, 0, serial)).toISOString();
    const properties = Object.fromEntries(Object.entries(req.body?.properties ?? {}).map(([k, v]) => [k, v === null ? null : String(v)]));
    const record = {
      id: String(20_000 + serial),
      properties: { ...properties, hs_object_id: String(20_000 + serial) },
      createdAt: now,
      updatedAt: now,
      archived: false,
    };
    objects[kind].add(req.scenario, { ...record, associations: req.body?.associations ?? [] });
    return new Answer(201, record);
  };
}

function update(req, m) {
  const deal = objects.deals.find(req.scenario, (d) => d.id === m[1]);
  if (!deal) return hubspotError(404, "OBJECT_NOT_FOUND", "resource not found");
  const invalid = invalidStage(req.body?.properties);
  if (invalid) return invalid;
  Object.assign(deal.properties, req.body?.properties);
  const { associations, ...shown } = deal;
  return shown;
}

function list(req) {
  const all = [...objects.deals.list(req.scenario)].reverse().map(({ associations, ...shown }) => shown);
  const { page, next } = pageOf(all, req.query.after, req.query.limit ?? 10);
  return { results: page, ...(next === null ? {} : { paging: { next: { after: String(next), link: `?after=${next}` } } }) };
}

function addToList(req, m) {
  if (m[1] !== "42") return hubspotError(404, "OBJECT_NOT_FOUND", `List ${m[1]} does not exist.`);
  const ids = Array.isArray(req.body) ? req.body : [];
  return { recordIdsAdded: ids.filter((id) => id !== "999"), recordIdsMissing: ids.filter((id) => id === "999") };
}

export const hubspotCrmRoutes = [
  ["POST", /^\/crm\/v3\/objects\/deals$/, create("deals")],
  ["GET", /^\/crm\/v3\/objects\/deals$/, list],
  ["PATCH", /^\/crm\/v3\/objects\/deals\/(\d+)$/, update],
  ["POST", /^\/crm\/v3\/objects\/companies$/, create("companies")],
  ["POST", /^\/crm\/v3\/objects\/notes$/, create("notes")],
  ["PUT", /^\/crm\/v3\/lists\/(\d+)\/memberships\/add$/, addToList],
];
