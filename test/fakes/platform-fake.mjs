// A loopback stand-in for the platforms' public APIs. Each test uses its own scenario prefix
// (base_url = <fake>/s/<scenario>), so parallel test files never see each other's requests.
//   GET  /__requests/<scenario>   what the hub sent (method, path, query, headers, body)
//   POST /__respond/<scenario>    {status, body, headers?}: answer every later request of the scenario so
//   POST /__script/<scenario>     [{status?, body, headers?}, …]: answer the next requests with these, in order
//                                 (a model's successive turns, a 429 with Retry-After then a success);
//                                 {trickle_ms} answers 200 and then one space every trickle_ms, never finishing
//                                 (a model server that stalls mid-answer), until the client hangs up;
//                                 {delay_ms} waits before answering; a model's answer asked for with
//                                 `stream: true` is streamed in the provider's format (model-streams.mjs)
// Anything else under /s/<scenario>/… is recorded and answered by the canned response for that
// platform endpoint (see ROUTES), shaped like the real API's, failures included: HubSpot keeps the
// contacts a scenario created (a second create with the same email is its 409, an unknown property
// its 400 VALIDATION_ERROR), Slack answers not_in_channel for #random, Airtable refuses a
// non-number Score (422 INVALID_VALUE_FOR_COLUMN), and every list pages (its page size honoured,
// a cursor for the next page).
import http from "node:http";
import { petstoreAnswer } from "./petstore.mjs";
import { Answer, b64, pageOf, unb64 } from "./fake-kit.mjs";
import { streamFormatOf, streamModelAnswer } from "./model-streams.mjs";
import { brevoRoutes } from "./platforms/brevo.mjs";
import { calendlyRoutes } from "./platforms/calendly.mjs";
import { feedsRoutes } from "./platforms/feeds.mjs";
import { gmailRoutes } from "./platforms/gmail.mjs";
import { googleAnalyticsRoutes } from "./platforms/google-analytics.mjs";
import { hubspotCrmRoutes } from "./platforms/hubspot-crm.mjs";
import { intercomRoutes } from "./platforms/intercom.mjs";
import { klaviyoRoutes } from "./platforms/klaviyo.mjs";
import { googleSheetsRoutes } from "./platforms/google-sheets.mjs";
import { mailchimpCampaignRoutes } from "./platforms/mailchimp-campaigns.mjs";
import { mailgunRoutes } from "./platforms/mailgun.mjs";
import { pipedriveRoutes } from "./platforms/pipedrive.mjs";
import { postmarkRoutes } from "./platforms/postmark.mjs";
import { segmentRoutes } from "./platforms/segment.mjs";
import { sendgridRoutes } from "./platforms/sendgrid.mjs";
import { shopifyRoutes } from "./platforms/shopify.mjs";
import { slackThreadRoutes } from "./platforms/slack-threads.mjs";
import { stripeRoutes } from "./platforms/stripe.mjs";
import { twilioRoutes } from "./platforms/twilio.mjs";
import { zendeskRoutes } from "./platforms/zendesk.mjs";
import { salesforceRoutes } from "./platforms/salesforce.mjs";
import { typeformRoutes } from "./platforms/typeform.mjs";
import { linkedinRoutes } from "./platforms/linkedin.mjs";
import { xRoutes } from "./platforms/x.mjs";
import { activecampaignRoutes } from "./platforms/activecampaign.mjs";
import { microsoftTeamsRoutes } from "./platforms/microsoft-teams.mjs";

const requests = new Map();
const overrides = new Map();
/** Scripted answers, served one per request in order (a model's successive turns). */
const scripts = new Map();
/** HubSpot contacts each scenario created, oldest first. */
const contacts = new Map();

// Slack: the bot is a member of #general and #marketing, not of #random.
const SLACK_CHANNELS = [
  { id: "C0GENERAL", name: "general", is_member: true },
  { id: "C0RANDOM", name: "random", is_member: false },
  { id: "C0MARKETING", name: "marketing", is_member: true },
];
const notMember = (channel) => SLACK_CHANNELS.some((c) => !c.is_member && (channel === c.id || channel === `#${c.name}`));

// HubSpot: the portal's contact properties (the defaults and the custom ones the templates use).
const HUBSPOT_PROPERTIES = new Set([
  "email",
  "firstname",
  "lastname",
  "company",
  "phone",
  "mobilephone",
  "lifecyclestage",
  "hs_lead_status",
  "annualrevenue",
  "website",
  "jobtitle",
  "city",
  "country",
  "last_webinar",
]);
const hubspotError = (status, category, message) =>
  new Answer(status, { status: "error", message, correlationId: "8b3c1f2e-5a6d-4e7f-9a0b-1c2d3e4f5a6b", category });

function hubspotInvalid(properties) {
  const unknown = Object.keys(properties ?? {}).filter((name) => !HUBSPOT_PROPERTIES.has(name));
  if (!unknown.length) return undefined;
  const details = unknown.map((name) => ({
    isValid: false,
    message: `Property "${name}" does not exist`,
    error: "PROPERTY_DOESNT_EXIST",
    name,
    localizedErrorMessage: `Property "${name}" does not exist`,
  }));
  return hubspotError(400, "VALIDATION_ERROR", `Property values were not valid: ${JSON.stringify(details)}`);
}

function hubspotCreate(scenario, properties) {
  const invalid = hubspotInvalid(properties);
  if (invalid) return invalid;
  const list = contacts.get(scenario) ?? [];
  const email = String(properties?.email ?? "").toLowerCase();
  const existing = email && list.find((c) => String(c.properties.email ?? "").toLowerCase() === email);
  if (existing) return hubspotError(409, "CONFLICT", `Contact already exists. Existing ID: ${existing.id}`);
  const now = new Date().toISOString();
  const contact = { id: String(151 + list.length), properties: { ...properties }, createdAt: now, updatedAt: now, archived: false };
  contacts.set(scenario, [...list, contact]);
  return new Answer(201, contact);
}

function hubspotUpdate(scenario, id, properties) {
  const contact = (contacts.get(scenario) ?? []).find((c) => c.id === id);
  if (!contact) return hubspotError(404, "OBJECT_NOT_FOUND", "resource not found");
  const invalid = hubspotInvalid(properties);
  if (invalid) return invalid;
  Object.assign(contact.properties, properties);
  contact.updatedAt = new Date().toISOString();
  return contact;
}

function hubspotSearch(scenario, body) {
  // No filter, sorted by createdate descending: the newest contacts (list_new_contacts).
  if (!body?.filterGroups?.length && body?.sorts?.[0]?.direction === "DESCENDING") {
    const { page, next } = pageOf([...(contacts.get(scenario) ?? [])].reverse(), body.after, body.limit ?? 10);
    return { total: contacts.get(scenario)?.length ?? 0, results: page, ...(next === null ? {} : { paging: { next: { after: String(next) } } }) };
  }
  const email = String(body?.filterGroups?.[0]?.filters?.[0]?.value ?? "").toLowerCase();
  const found = (contacts.get(scenario) ?? []).filter((c) => String(c.properties.email ?? "").toLowerCase() === email);
  const wanted = body?.properties ?? ["email", "firstname", "lastname"];
  const results = found.map((c) => ({ ...c, properties: Object.fromEntries(wanted.filter((p) => p in c.properties).map((p) => [p, c.properties[p]])) }));
  return { total: results.length, results };
}

function hubspotList(scenario, query) {
  const { page, next } = pageOf(contacts.get(scenario) ?? [], query.after, query.limit ?? 10);
  return { results: page, ...(next === null ? {} : { paging: { next: { after: String(next), link: `?after=${next}` } } }) };
}

// Airtable: Score is a number field; with typecast a numeric string is taken.
const AIRTABLE_RECORDS = [
  { id: "rec1", createdTime: "2026-11-20T09:00:00.000Z", fields: { Name: "Ada" } },
  { id: "rec2", createdTime: "2026-11-21T09:00:00.000Z", fields: { Name: "Grace" } },
  { id: "rec3", createdTime: "2026-11-22T09:00:00.000Z", fields: { Name: "Linus" } },
];

function airtableCreate(body) {
  const score = body?.fields?.Score;
  const number = typeof score === "number" || (body?.typecast && typeof score === "string" && score.trim() !== "" && !Number.isNaN(Number(score)));
  if (score !== undefined && !number)
    return new Answer(422, { error: { type: "INVALID_VALUE_FOR_COLUMN", message: 'Field "Score" cannot accept the provided value' } });
  return { id: "recNEW0000000001", createdTime: "2026-11-22T09:00:00.000Z", fields: body?.fields ?? {} };
}

function airtableList(query) {
  // maxRecords caps the records over all pages; pageSize (at most 100) each page.
  const records = AIRTABLE_RECORDS.slice(0, Number(query.maxRecords) || undefined);
  const start = query.offset ? Number(query.offset.split("/rec")[1]) - 1 : 0;
  const { page, next } = pageOf(records, start, Math.min(Number(query.pageSize) || 100, 100));
  return { records: page, ...(next === null ? {} : { offset: `itrFAKE/rec${next + 1}` }) };
}

// Notion: the cursor is the next page's id, as Notion's own.
const NOTION_PAGES = ["p1", "p2", "p3"].map((id) => ({ object: "page", id, url: `https://www.notion.so/${id}`, properties: {} }));

function notionQuery(body) {
  const start = body?.start_cursor ? NOTION_PAGES.findIndex((p) => p.id === body.start_cursor) : 0;
  if (start < 0) return new Answer(400, { object: "error", status: 400, code: "validation_error", message: "start_cursor should be a valid uuid." });
  const { page, next } = pageOf(NOTION_PAGES, start, body?.page_size ?? 100);
  return { object: "list", results: page, next_cursor: next === null ? null : NOTION_PAGES[next].id, has_more: next !== null };
}

// Mailchimp: offset and count, with total_items.
const MAILCHIMP_LISTS = [
  { id: "a1b2c3d4e5", name: "Newsletter", stats: { member_count: 1200 } },
  { id: "b2c3d4e5f6", name: "Customers", stats: { member_count: 300 } },
  { id: "c3d4e5f6a7", name: "Webinar", stats: { member_count: 85 } },
];

const ROUTES = [
  // Slack (errors are HTTP 200 with ok:false)
  ["POST", /^\/auth\.test$/, () => ({ ok: true, team: "Acme Marketing", user: "hubbot", team_id: "T1" })],
  [
    "POST",
    /^\/chat\.postMessage$/,
    (req) =>
      notMember(req.body?.channel)
        ? { ok: false, error: "not_in_channel" }
        : { ok: true, channel: req.body?.channel === "#general" ? "C0GENERAL" : req.body?.channel, ts: "1763800000.000100" },
  ],
  // chat.update needs the channel's id and the message's ts (an approval's message losing its buttons).
  [
    "POST",
    /^\/chat\.update$/,
    (req) =>
      /^C\w+$/.test(req.body?.channel ?? "") && req.body?.ts
        ? { ok: true, channel: req.body.channel, ts: req.body.ts, text: req.body.text ?? "" }
        : { ok: false, error: req.body?.ts ? "channel_not_found" : "message_not_found" },
  ],
  [
    "GET",
    /^\/conversations\.list$/,
    (req) => {
      const start = req.query.cursor ? Number(unb64(req.query.cursor).split(":")[1]) : 0;
      const { page, next } = pageOf(SLACK_CHANNELS, start, req.query.limit ?? 100);
      return { ok: true, channels: page, response_metadata: { next_cursor: next === null ? "" : b64(`channel:${next}`) } };
    },
  ],
  // Discord
  ["GET", /^\/users\/@me$/, () => ({ id: "1", username: "hub-bot", name: "Hub integration", bot: { workspace_name: "Acme" } })],
  ["POST", /^\/channels\/(\d+)\/messages$/, (req, m) => ({ id: "1100000000000000001", channel_id: m[1], content: req.body?.content })],
  ["GET", /^\/guilds\/(\d+)\/channels$/, () => [{ id: "200000000000000001", name: "announcements", type: 0 }]],
  // Telegram (token in the path)
  ["GET", /^\/bot[^/]+\/getMe$/, () => ({ ok: true, result: { id: 42, is_bot: true, username: "acme_hub_bot" } })],
  [
    "POST",
    /^\/bot[^/]+\/sendMessage$/,
    (req) => ({ ok: true, result: { message_id: 77, chat: { id: Number(req.body?.chat_id) || -100 }, text: req.body?.text } }),
  ],
  ["GET", /^\/bot[^/]+\/getChat$/, (req) => ({ ok: true, result: { id: Number(req.query.chat_id), type: "channel", title: "Acme News" } })],
  // Resend
  ["GET", /^\/domains$/, () => ({ data: [{ id: "d1", name: "acme.com", status: "verified" }] })],
  ["POST", /^\/emails$/, () => ({ id: "49a3999c-0ce1-4ea6-ab68-afcd6dc2e794" })],
  ["GET", /^\/emails\/([\w-]+)$/, (_req, m) => ({ object: "email", id: m[1], last_event: "delivered" })],
  // HubSpot (contacts kept per scenario)
  ["GET", /^\/crm\/v3\/objects\/contacts$/, (req) => hubspotList(req.scenario, req.query)],
  ["POST", /^\/crm\/v3\/objects\/contacts$/, (req) => hubspotCreate(req.scenario, req.body?.properties)],
  ["POST", /^\/crm\/v3\/objects\/contacts\/search$/, (req) => hubspotSearch(req.scenario, req.body)],
  ["PATCH", /^\/crm\/v3\/objects\/contacts\/(\d+)$/, (req, m) => hubspotUpdate(req.scenario, m[1], req.body?.properties)],
  // Mailchimp
  ["GET", /^\/ping$/, () => ({ health_status: "Everything's Chimpy!" })],
  ["POST", /^\/lists\/(\w+)\/members\/([0-9a-f]{32})\/tags$/, () => ""],
  ["PUT", /^\/lists\/(\w+)\/members\/([0-9a-f]{32})$/, (req) => ({ id: "abc", email_address: req.body?.email_address, status: req.body?.status_if_new })],
  ["GET", /^\/lists$/, (req) => ({ lists: pageOf(MAILCHIMP_LISTS, req.query.offset, req.query.count ?? 10).page, total_items: MAILCHIMP_LISTS.length })],
  // Airtable
  ["GET", /^\/meta\/whoami$/, () => ({ id: "usrAcme" })],
  ["POST", /^\/(app\w+)\/([^/]+)$/, (req) => airtableCreate(req.body)],
  ["GET", /^\/(app\w+)\/([^/]+)$/, (req) => airtableList(req.query)],
  // Notion
  [
    "GET",
    /^\/users\/me$/,
    () => ({
      object: "user",
      id: "5a1a1c6e-1b1e-4a8f-9f43-2a0c3f6f7d11",
      name: "Hub integration",
      type: "bot",
      bot: { owner: { type: "workspace", workspace: true }, workspace_name: "Acme" },
    }),
  ],
  ["POST", /^\/pages$/, () => ({ object: "page", id: "59833787-2cf9-4fdf-8782-e53db20768a5", url: "https://www.notion.so/page" })],
  ["POST", /^\/databases\/([\w-]+)\/query$/, (req) => notionQuery(req.body)],
  // OpenAI-compatible and Anthropic model lists
  ["GET", /^\/models$/, () => ({ data: [{ id: "test-model" }] })],
  // Generic receivers (webhook, http)
  ["POST", /^\/hook$/, () => ({ received: true })],
  ["GET", /^\/things\/(\w+)$/, (_req, m) => ({ id: m[1], kind: "thing" })],
  ...stripeRoutes,
  ...gmailRoutes,
  ...googleSheetsRoutes,
  ...sendgridRoutes,
  ...mailgunRoutes,
  ...postmarkRoutes,
  ...twilioRoutes,
  ...segmentRoutes,
  ...googleAnalyticsRoutes,
  ...calendlyRoutes,
  ...zendeskRoutes,
  ...intercomRoutes,
  ...pipedriveRoutes,
  ...shopifyRoutes,
  ...hubspotCrmRoutes,
  ...slackThreadRoutes,
  ...mailchimpCampaignRoutes,
  ...feedsRoutes,
  ...typeformRoutes,
  ...klaviyoRoutes,
  ...linkedinRoutes,
  ...xRoutes,
  ...salesforceRoutes,
  ...activecampaignRoutes,
  ...microsoftTeamsRoutes,
  ...brevoRoutes,
];

/** A DNS-over-HTTPS (JSON API) resolver with a few fixed names, for the outbound address checks. */
const DNS_ZONE = {
  "public.example.test": { A: ["93.184.216.34"], AAAA: ["2606:2800:220:1::1"] },
  "private.example.test": { A: ["10.0.0.5"] },
  "metadata.example.test": { A: ["93.184.216.34", "169.254.169.254"] },
  "loopback6.example.test": { AAAA: ["::1"] },
  "mapped.example.test": { AAAA: ["::ffff:10.0.0.5"] },
  "garbage.example.test": { A: ["not-an-address"] },
};

function dnsAnswer(name, type) {
  const records = DNS_ZONE[name];
  if (name === "servfail.example.test") return { Status: 2 };
  if (!records) return { Status: 3 };
  const code = type === "AAAA" ? 28 : 1;
  return { Status: 0, Answer: (records[type] ?? []).map((data) => ({ name, type: code, TTL: 30, data })) };
}

function readBody(req) {
  return new Promise((resolve) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

function send(res, status, body, headers = {}) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(text);
}

/** Headers and then a byte now and then, for ten minutes at most: no read timeout ever trips. */
function trickle(res, everyMs) {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.write(" ");
  const timer = setInterval(() => res.write(" "), everyMs);
  const stop = setTimeout(() => res.destroy(), 10 * 60_000);
  res.on("close", () => {
    clearInterval(timer);
    clearTimeout(stop);
  });
}

/** A scripted or standing answer: after its delay_ms, streamed when the model's client asked to stream, else whole. */
async function answerScripted(res, record, answer) {
  if (answer.delay_ms) await new Promise((resolve) => setTimeout(resolve, answer.delay_ms));
  const format = streamFormatOf(record, answer);
  if (format) return streamModelAnswer(res, record, answer, format);
  return send(res, answer.status ?? 200, answer.body ?? {}, answer.headers);
}

export function startPlatformFake(port) {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, "http://fake");
    const raw = await readBody(req);
    let body = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      // keep text
    }
    if (url.pathname === "/dns-query")
      return send(res, 200, dnsAnswer(url.searchParams.get("name"), url.searchParams.get("type")), { "Content-Type": "application/dns-json" });
    const control = url.pathname.match(/^\/__(requests|respond|script)\/([\w-]+)$/);
    if (control) {
      const [, verb, scenario] = control;
      if (verb === "requests") return send(res, 200, requests.get(scenario) ?? []);
      if (verb === "script") {
        scripts.set(scenario, [...(scripts.get(scenario) ?? []), ...body]);
        return send(res, 204, "");
      }
      overrides.set(scenario, body);
      return send(res, 204, "");
    }
    const match = url.pathname.match(/^\/s\/([\w-]+)(\/.*)?$/);
    if (!match) return send(res, 404, { message: "unknown fake path" });
    const [, scenario, rest = "/"] = match;
    const record = { method: req.method, path: rest, query: Object.fromEntries(url.searchParams), headers: req.headers, body, raw, received_at: Date.now() };
    requests.set(scenario, [...(requests.get(scenario) ?? []), record]);
    const scripted = scripts.get(scenario)?.shift();
    if (scripted?.trickle_ms) return trickle(res, scripted.trickle_ms);
    if (scripted) return answerScripted(res, record, scripted);
    const override = overrides.get(scenario);
    if (override) return answerScripted(res, record, override);
    const pet = petstoreAnswer({ ...record, scenario, url });
    if (pet) return send(res, pet.status, pet.body, pet.headers);
    for (const [method, pattern, respond] of ROUTES) {
      const m = rest.match(pattern);
      if (method !== req.method || !m) continue;
      const answer = respond({ ...record, scenario }, m);
      return answer instanceof Answer ? send(res, answer.status, answer.body, answer.headers) : send(res, 200, answer);
    }
    return send(res, 404, { message: `no fake for ${req.method} ${rest}` });
  });
  return new Promise((resolve) => {
    server.listen(port, "127.0.0.1", () => resolve({ close: () => new Promise((done) => server.close(() => done())) }));
  });
}
