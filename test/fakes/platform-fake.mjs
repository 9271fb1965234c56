// A loopback stand-in for the platforms' public APIs. Each test uses its own scenario prefix
// (base_url = <fake>/s/<scenario>), so parallel test files never see each other's requests.
//   GET  /__requests/<scenario>   what the hub sent (method, path, query, headers, body)
//   POST /__respond/<scenario>    {status, body, headers?}: answer every later request of the scenario so
//   POST /__script/<scenario>     [{status?, body}, …]: answer the next requests with these, in order
// Anything else under /s/<scenario>/… is recorded and answered by the canned response for that
// platform endpoint (see ROUTES), shaped like the real API's.
import http from "node:http";

const requests = new Map();
const overrides = new Map();
/** Scripted answers, served one per request in order (a model's successive turns). */
const scripts = new Map();

const ROUTES = [
  // Slack
  ["POST", /^\/auth\.test$/, () => ({ ok: true, team: "Acme Marketing", user: "hubbot", team_id: "T1" })],
  [
    "POST",
    /^\/chat\.postMessage$/,
    (req) => ({ ok: true, channel: req.body?.channel === "#general" ? "C0GENERAL" : req.body?.channel, ts: "1763800000.000100" }),
  ],
  [
    "GET",
    /^\/conversations\.list$/,
    () => ({ ok: true, channels: [{ id: "C0GENERAL", name: "general", is_member: true }], response_metadata: { next_cursor: "" } }),
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
  // HubSpot
  ["GET", /^\/crm\/v3\/objects\/contacts$/, () => ({ results: [] })],
  ["POST", /^\/crm\/v3\/objects\/contacts$/, (req) => ({ id: "151", properties: req.body?.properties ?? {} })],
  [
    "POST",
    /^\/crm\/v3\/objects\/contacts\/search$/,
    () => ({ total: 1, results: [{ id: "151", properties: { email: "ada@example.com", firstname: "Ada" } }] }),
  ],
  ["PATCH", /^\/crm\/v3\/objects\/contacts\/(\d+)$/, (req, m) => ({ id: m[1], properties: req.body?.properties ?? {} })],
  // Mailchimp
  ["GET", /^\/ping$/, () => ({ health_status: "Everything's Chimpy!" })],
  ["POST", /^\/lists\/(\w+)\/members\/([0-9a-f]{32})\/tags$/, () => ""],
  ["PUT", /^\/lists\/(\w+)\/members\/([0-9a-f]{32})$/, (req) => ({ id: "abc", email_address: req.body?.email_address, status: req.body?.status_if_new })],
  ["GET", /^\/lists$/, () => ({ lists: [{ id: "a1b2c3d4e5", name: "Newsletter", stats: { member_count: 1200 } }] })],
  // Airtable
  ["GET", /^\/meta\/whoami$/, () => ({ id: "usrAcme" })],
  ["POST", /^\/(app\w+)\/([^/]+)$/, (req) => ({ id: "recNEW0000000001", createdTime: "2026-11-22T09:00:00.000Z", fields: req.body?.fields ?? {} })],
  ["GET", /^\/(app\w+)\/([^/]+)$/, () => ({ records: [{ id: "rec1", fields: { Name: "Ada" } }] })],
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
  ["POST", /^\/databases\/([\w-]+)\/query$/, () => ({ results: [{ id: "p1", url: "https://www.notion.so/p1", properties: {} }], next_cursor: null })],
  // OpenAI-compatible and Anthropic model lists
  ["GET", /^\/models$/, () => ({ data: [{ id: "test-model" }] })],
  // Generic receivers (webhook, http)
  ["POST", /^\/hook$/, () => ({ received: true })],
  ["GET", /^\/things\/(\w+)$/, (_req, m) => ({ id: m[1], kind: "thing" })],
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
    const record = { method: req.method, path: rest, query: Object.fromEntries(url.searchParams), headers: req.headers, body, raw };
    requests.set(scenario, [...(requests.get(scenario) ?? []), record]);
    const scripted = scripts.get(scenario)?.shift();
    if (scripted) return send(res, scripted.status ?? 200, scripted.body ?? {});
    const override = overrides.get(scenario);
    if (override) return send(res, override.status ?? 200, override.body ?? {}, override.headers);
    for (const [method, pattern, respond] of ROUTES) {
      const m = rest.match(pattern);
      if (method === req.method && m) return send(res, 200, respond(record, m));
    }
    return send(res, 404, { message: `no fake for ${req.method} ${rest}` });
  });
  return new Promise((resolve) => {
    server.listen(port, "127.0.0.1", () => resolve({ close: () => new Promise((done) => server.close(() => done())) }));
  });
}
