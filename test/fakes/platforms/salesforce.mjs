// Salesforce's REST API v62.0 (developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/),
// mounted where an org serves it (/services/data/v62.0): Leads, Accounts and Contacts kept per
// scenario (250 contacts to start with, so a query pages), sObject create / read / update / upsert
// by external ID, and SOQL through a small evaluator (SELECT … FROM … WHERE … ORDER BY … LIMIT)
// whose results page by query locator (nextRecordsUrl, Sforce-Query-Options batchSize 200–2000).
// Refusals are Salesforce's array of {message, errorCode, fields}: 401 INVALID_SESSION_ID for a
// token that is not the fake OAuth provider's, 404 NOT_FOUND, 400 REQUIRED_FIELD_MISSING,
// INVALID_FIELD, INVALID_FIELD_FOR_INSERT_UPDATE, MALFORMED_QUERY, INVALID_TYPE, DUPLICATES_DETECTED
// (a lead whose email another lead has), and 300 with the matching records' URLs for an upsert
// whose external ID several records share. CreatedDate has whole seconds, as Salesforce's does, and
// two records are made in each second, so newest-first lists need the Id as a tie-break.
import { Answer } from "../fake-kit.mjs";

const ROOT = "/services/data/v62.0";
const CUSTOM_FIELD_HINT =
  "If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names.";

const OBJECTS = {
  Lead: {
    prefix: "00Q",
    fields: ["Id", "FirstName", "LastName", "Company", "Email", "Phone", "Title", "Status", "LeadSource", "Description", "External_Id__c", "CreatedDate"],
    required: ["LastName", "Company"],
    externalIds: ["External_Id__c"],
    defaults: { Status: "Open - Not Contacted" },
  },
  Account: {
    prefix: "001",
    fields: ["Id", "Name", "Industry", "Website", "Phone", "NumberOfEmployees", "External_Id__c", "CreatedDate"],
    required: ["Name"],
    externalIds: ["External_Id__c"],
    defaults: {},
  },
  Contact: {
    prefix: "003",
    fields: ["Id", "FirstName", "LastName", "Email", "AccountId", "CreatedDate"],
    required: ["LastName"],
    externalIds: [],
    relationships: { Account: { object: "Account", field: "AccountId" } },
    defaults: {},
  },
};
const READ_ONLY = new Set(["Id", "CreatedDate"]);

const errors = (status, ...list) =>
  new Answer(
    status,
    list.map(([errorCode, message, fields]) => ({ message, errorCode, ...(fields ? { fields } : {}) })),
  );
const notFound = () => errors(404, ["NOT_FOUND", "The requested resource does not exist"]);
const urlOf = (type, id) => `${ROOT}/sobjects/${type}/${id}`;

function refused(req) {
  if (/^Bearer at_[\w-]{10,}$/.test(String(req.headers.authorization ?? ""))) return undefined;
  return errors(401, ["INVALID_SESSION_ID", "Session expired or invalid"]);
}

// Records per scenario and object, oldest first.
const orgs = new Map();
let serial = 0;

function org(scenario) {
  if (!orgs.has(scenario)) {
    const state = { Lead: [], Account: [], Contact: [], made: 0 };
    orgs.set(scenario, state);
    for (let n = 1; n <= 250; n++)
      insert(state, "Contact", { FirstName: "Sample", LastName: `Contact ${String(n).padStart(3, "0")}`, Email: `c${n}@example.com` });
  }
  return orgs.get(scenario);
}

function insert(state, type, fields) {
  const spec = OBJECTS[type];
  const id = `${spec.prefix}Dn0000${String(++serial).padStart(6, "0")}AAX`;
  const second = Math.floor(state.made++ / 2);
  const created = new Date(Date.UTC(2026, 3, 22, 9, 0, 0) + second * 1000).toISOString().replace("Z", "+0000");
  const record = { ...Object.fromEntries(spec.fields.map((f) => [f, null])), ...spec.defaults, ...fields, Id: id, CreatedDate: created };
  state[type].push(record);
  return record;
}

/** The body's fields as they would be stored, or Salesforce's refusal. */
function writable(state, type, body, creating) {
  const spec = OBJECTS[type];
  const values = {};
  for (const [name, value] of Object.entries(body ?? {})) {
    const relation = spec.relationships?.[name];
    if (relation && value && typeof value === "object") {
      const [field, key] = Object.entries(value)[0] ?? [];
      const parent = state[relation.object].find((r) => field in r && String(r[field]).toLowerCase() === String(key).toLowerCase());
      if (!parent)
        return errors(400, [
          "INVALID_FIELD",
          `Foreign key external ID: ${String(key).toLowerCase()} not found for field ${field} in entity ${relation.object}`,
        ]);
      values[relation.field] = parent.Id;
    } else if (!spec.fields.includes(name)) {
      return errors(400, ["INVALID_FIELD", `No such column '${name}' on sobject of type ${type}`]);
    } else if (READ_ONLY.has(name)) {
      return errors(400, [
        "INVALID_FIELD_FOR_INSERT_UPDATE",
        `Unable to create/update fields: ${name}. Please check the security settings of this field and verify that it is read/write for your profile or permission set.`,
        [name],
      ]);
    } else values[name] = value;
  }
  if (creating) {
    const missing = spec.required.filter((f) => values[f] === undefined || values[f] === null || values[f] === "");
    if (missing.length) return errors(400, ["REQUIRED_FIELD_MISSING", `Required fields are missing: [${missing.join(", ")}]`, missing]);
  }
  if (type === "Lead" && values.Email) {
    const twin = state.Lead.find((l) => String(l.Email ?? "").toLowerCase() === String(values.Email).toLowerCase());
    if (twin) return duplicate(twin);
  }
  return values;
}

// The Standard Lead Duplicate Rule, set to block: api_rest.meta/api_rest/errorcodes.htm, DUPLICATES_DETECTED.
function duplicate(twin) {
  const message = "You're creating a duplicate record. We recommend you use an existing record instead.";
  return new Answer(400, [
    {
      duplicateResult: {
        allowSave: false,
        duplicateRule: "Standard_Lead_Duplicate_Rule",
        duplicateRuleEntityType: "Lead",
        errorMessage: message,
        matchResults: [
          {
            entityType: "Lead",
            errors: [],
            matchEngine: "FuzzyMatchEngine",
            matchRecords: [
              {
                additionalInformation: [],
                fieldDiffs: [],
                matchConfidence: 100,
                record: { attributes: { type: "Lead", url: urlOf("Lead", twin.Id) }, Id: twin.Id },
              },
            ],
            rule: "Standard_Lead_Match_Rule_v1_0",
            size: 1,
            success: true,
          },
        ],
      },
      errorCode: "DUPLICATES_DETECTED",
      message,
    },
  ]);
}

function create(req, type) {
  if (!OBJECTS[type]) return notFound();
  const state = org(req.scenario);
  const values = writable(state, type, req.body, true);
  if (values instanceof Answer) return values;
  const record = insert(state, type, values);
  return new Answer(201, { id: record.Id, success: true, errors: [] }, { Location: urlOf(type, record.Id) });
}

const project = (type, record, fields) => ({
  attributes: { type, url: urlOf(type, record.Id) },
  ...Object.fromEntries(fields.map((f) => [f, record[f] ?? null])),
});

function read(req, type, id) {
  if (!OBJECTS[type]) return notFound();
  const record = org(req.scenario)[type].find((r) => r.Id === id);
  if (!record) return notFound();
  const fields = req.query.fields ? req.query.fields.split(",") : OBJECTS[type].fields;
  const unknown = fields.find((f) => !OBJECTS[type].fields.includes(f));
  if (unknown) return errors(400, ["INVALID_FIELD", `No such column '${unknown}' on entity '${type}'. ${CUSTOM_FIELD_HINT}`]);
  // Named fields come back with the record's Id (api_rest.meta/api_rest/dome_get_field_values.htm).
  return project(type, record, fields.includes("Id") ? fields : [...fields, "Id"]);
}

function update(req, type, id) {
  if (!OBJECTS[type]) return notFound();
  const state = org(req.scenario);
  const record = state[type].find((r) => r.Id === id);
  if (!record) return notFound();
  const values = writable(state, type, req.body, false);
  if (values instanceof Answer) return values;
  Object.assign(record, values);
  return new Answer(204, "");
}

// api_rest.meta/api_rest/dome_upsert.htm: 201 and created: true for a new record, 200 and
// created: false for an update, 300 with the matching records' URLs when several match.
function upsert(req, type, field, encoded) {
  if (!OBJECTS[type]) return notFound();
  if (!OBJECTS[type].externalIds.includes(field)) return errors(404, ["NOT_FOUND", `Provided external ID field does not exist or is not accessible: ${field}`]);
  const value = decodeURIComponent(encoded);
  const state = org(req.scenario);
  const matches = state[type].filter((r) => String(r[field] ?? "").toLowerCase() === value.toLowerCase());
  if (matches.length > 1)
    return new Answer(
      300,
      matches.map((r) => urlOf(type, r.Id)),
    );
  const values = writable(state, type, req.body, matches.length === 0);
  if (values instanceof Answer) return values;
  if (matches.length === 1) {
    Object.assign(matches[0], values);
    return { id: matches[0].Id, success: true, errors: [], created: false };
  }
  const record = insert(state, type, { ...values, [field]: value });
  return new Answer(201, { id: record.Id, success: true, errors: [], created: true }, { Location: urlOf(type, record.Id) });
}

// SOQL, as much of it as the hub's tools write: SELECT fields FROM object [WHERE conditions with
// AND, OR and parentheses] [ORDER BY field [ASC|DESC], …] [LIMIT n].

class SoqlError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function tokens(soql) {
  const list = [];
  const scanner =
    /\s*(?:('(?:[^'\\]|\\.)*')|(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?(?:Z|[+-]\d{2}:\d{2}))|(\d+(?:\.\d+)?)|([A-Za-z_][\w.]*)|(<=|>=|!=|=|<|>|\(|\)|,))/y;
  let at = 0;
  const end = soql.trimEnd().length;
  while (at < end) {
    scanner.lastIndex = at;
    const m = scanner.exec(soql);
    if (!m) throw located(soql, at, "MALFORMED_QUERY", `unexpected token: '${soql.slice(at).trim().split(/\s/)[0]}'`);
    const start = m.index + m[0].length - m[0].trimStart().length;
    if (m[1]) list.push({ kind: "value", value: m[1].slice(1, -1).replace(/\\(.)/g, "$1"), at: start });
    else if (m[2]) list.push({ kind: "value", value: Date.parse(m[2]), date: true, at: start });
    else if (m[3]) list.push({ kind: "value", value: Number(m[3]), at: start });
    else if (m[4]) list.push({ kind: "word", value: m[4], upper: m[4].toUpperCase(), at: start });
    else list.push({ kind: "op", value: m[5], at: start });
    at = scanner.lastIndex;
  }
  return list;
}

/** Salesforce's SOQL error text: the query, a caret under the column, and the reason. */
function located(soql, at, code, reason) {
  return new SoqlError(code, `\n${soql}\n${" ".repeat(at)}^\nERROR at Row:1:Column:${at + 1}\n${reason}`);
}

function parse(soql) {
  const list = tokens(soql);
  let i = 0;
  const peek = () => list[i];
  const fail = (token) => located(soql, token?.at ?? soql.length, "MALFORMED_QUERY", token ? `unexpected token: '${token.value}'` : "unexpected end of query");
  const keyword = (word) => {
    if (peek()?.upper !== word) throw fail(peek());
    i++;
  };
  const word = () => {
    const token = list[i++];
    if (token?.kind !== "word") throw fail(token);
    return token;
  };
  keyword("SELECT");
  const fields = [word()];
  while (peek()?.value === ",") {
    i++;
    fields.push(word());
  }
  keyword("FROM");
  const from = word();
  const type = OBJECTS[from.value] ? from.value : undefined;
  if (!type)
    throw located(
      soql,
      from.at,
      "INVALID_TYPE",
      `sObject type '${from.value}' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name. Please reference your WSDL or the describe call for the appropriate names.`,
    );
  const column = (token) => {
    if (!OBJECTS[type].fields.includes(token.value))
      throw located(soql, token.at, "INVALID_FIELD", `No such column '${token.value}' on entity '${type}'. ${CUSTOM_FIELD_HINT}`);
    return token.value;
  };
  const condition = () => {
    if (peek()?.value === "(") {
      i++;
      const inner = disjunction();
      if (list[i++]?.value !== ")") throw fail(list[i - 1]);
      return inner;
    }
    const field = column(word());
    const op = list[i++];
    const literal = list[i++];
    if (op?.kind !== "op" || literal?.kind !== "value") throw fail(literal ?? op);
    return (record) => compare(record[field], field, op.value, literal);
  };
  const conjunction = () => {
    const parts = [condition()];
    while (peek()?.upper === "AND") {
      i++;
      parts.push(condition());
    }
    return (record) => parts.every((p) => p(record));
  };
  const disjunction = () => {
    const parts = [conjunction()];
    while (peek()?.upper === "OR") {
      i++;
      parts.push(conjunction());
    }
    return (record) => parts.some((p) => p(record));
  };
  const query = { type, fields: fields.map(column), where: () => true, order: [], limit: undefined };
  if (peek()?.upper === "WHERE") {
    i++;
    query.where = disjunction();
  }
  if (peek()?.upper === "ORDER") {
    i++;
    keyword("BY");
    do {
      if (peek()?.value === ",") i++;
      const field = column(word());
      const direction = peek()?.upper === "DESC" || peek()?.upper === "ASC" ? list[i++].upper : "ASC";
      query.order.push({ field, descending: direction === "DESC" });
    } while (peek()?.value === ",");
  }
  if (peek()?.upper === "LIMIT") {
    i++;
    const n = list[i++];
    if (typeof n?.value !== "number") throw fail(n);
    query.limit = n.value;
  }
  if (peek()) throw fail(peek());
  return query;
}

const dateOf = (value) => Date.parse(String(value).replace(/([+-]\d{2})(\d{2})$/, "$1:$2"));

/** A WHERE condition: CreatedDate as an instant, Ids exactly, other text without regard to case (as SOQL's =). */
function compare(value, field, op, literal) {
  let l = value;
  let r = literal.value;
  if (field === "CreatedDate") l = dateOf(value);
  else if (field !== "Id" && typeof l === "string" && typeof r === "string") {
    l = l.toLowerCase();
    r = r.toLowerCase();
  }
  if (op === "=") return l === r;
  if (op === "!=") return l !== r;
  if (l === null || l === undefined) return false;
  if (op === "<") return l < r;
  if (op === ">") return l > r;
  if (op === "<=") return l <= r;
  return l >= r;
}

// Open query locators: the rows of a result and their scenario.
const locators = new Map();
let cursors = 0;

function page(locator, rows, offset, batch) {
  const end = Math.min(rows.length, offset + batch);
  const done = end >= rows.length;
  return {
    totalSize: rows.length,
    done,
    ...(done ? {} : { nextRecordsUrl: `${ROOT}/query/${locator}-${end}` }),
    records: rows.slice(offset, end),
  };
}

function batchOf(req) {
  const asked = Number(/batchSize=(\d+)/.exec(String(req.headers["sforce-query-options"] ?? ""))?.[1] ?? 2000);
  return Math.min(2000, Math.max(200, asked));
}

function query(req) {
  const soql = String(req.query.q ?? "");
  let parsed;
  try {
    parsed = parse(soql);
  } catch (error) {
    if (error instanceof SoqlError) return errors(400, [error.code, error.message]);
    throw error;
  }
  const state = org(req.scenario);
  const rows = state[parsed.type].filter(parsed.where);
  rows.sort((a, b) => {
    for (const { field, descending } of parsed.order) {
      const x = field === "CreatedDate" ? dateOf(a[field]) : a[field];
      const y = field === "CreatedDate" ? dateOf(b[field]) : b[field];
      if (x !== y) return (x < y ? -1 : 1) * (descending ? -1 : 1);
    }
    return 0;
  });
  const projected = rows.slice(0, parsed.limit ?? rows.length).map((r) => project(parsed.type, r, parsed.fields));
  const locator = `01gDn${String(++cursors).padStart(13, "0")}`;
  locators.set(locator, { scenario: req.scenario, rows: projected });
  return page(locator, projected, 0, batchOf(req));
}

function more(req, locator, offset) {
  const open = locators.get(locator);
  if (!open || open.scenario !== req.scenario || Number(offset) > open.rows.length) return errors(400, ["INVALID_QUERY_LOCATOR", "invalid query locator"]);
  return page(locator, open.rows, Number(offset), batchOf(req));
}

const V = "^/services/data/v62\\.0";
export const salesforceRoutes = [
  [
    "GET",
    new RegExp(`${V}$`),
    (req) => refused(req) ?? { sobjects: `${ROOT}/sobjects`, query: `${ROOT}/query`, limits: `${ROOT}/limits`, search: `${ROOT}/search` },
  ],
  ["POST", new RegExp(`${V}/sobjects/(\\w+)$`), (req, m) => refused(req) ?? create(req, m[1])],
  ["GET", new RegExp(`${V}/sobjects/(\\w+)/(\\w+)$`), (req, m) => refused(req) ?? read(req, m[1], m[2])],
  ["PATCH", new RegExp(`${V}/sobjects/(\\w+)/(\\w+)$`), (req, m) => refused(req) ?? update(req, m[1], m[2])],
  ["PATCH", new RegExp(`${V}/sobjects/(\\w+)/(\\w+)/([^/]+)$`), (req, m) => refused(req) ?? upsert(req, m[1], m[2], m[3])],
  ["GET", new RegExp(`${V}/query$`), (req) => refused(req) ?? query(req)],
  ["GET", new RegExp(`${V}/query/(\\w+)-(\\d+)$`), (req, m) => refused(req) ?? more(req, m[1], m[2])],
];
