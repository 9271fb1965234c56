// Mailgun's API (documentation.mailgun.com): Basic auth as api:<key>, form-encoded writes, the
// domain in the path, {message} errors (a wrong key: 401 with the text "Forbidden"), events paged
// by a token in paging.next.
import { Answer, basicAuth, formOf } from "../fake-kit.mjs";

const EVENTS = [3, 2, 1].map((n) => ({
  id: `ev-${n}`,
  event: n === 1 ? "failed" : "delivered",
  recipient: `user${n}@example.com`,
  timestamp: 1763800000 + n,
  severity: n === 1 ? "permanent" : undefined,
  "delivery-status": { message: n === 1 ? "550 5.1.1 The email account does not exist" : "" },
  message: { headers: { "message-id": `2026${n}.abc@mg.acme.test` } },
}));

/** The domain's key; any other is "Forbidden". */
const authorized = (req) => basicAuth(req)?.user === "api" && String(basicAuth(req)?.password).startsWith("key-");

function send(req, m) {
  if (!authorized(req)) return new Answer(401, "Forbidden", { "Content-Type": "text/plain" });
  if (m[1] !== "mg.acme.test") return new Answer(404, { message: `Domain not found: ${m[1]}` });
  const form = formOf(req);
  if (!form.from) return new Answer(400, { message: "from parameter is missing" });
  if (!form.text && !form.html && !form.template) return new Answer(400, { message: "Need at least one of 'text', 'html' or 'template' parameters specified" });
  return { id: "<20261122090000.1.ABCDEF@mg.acme.test>", message: "Queued. Thank you." };
}

function events(req) {
  const start = req.query.page ? Number(req.query.page.replace("page", "")) : 0;
  const limit = Number(req.query.limit ?? 100);
  const found = EVENTS.filter((e) => !req.query.event || e.event === req.query.event);
  return {
    items: found.slice(start, start + limit),
    paging: { next: `https://api.mailgun.net/v3/mg.acme.test/events/page${start + limit}`, previous: "https://api.mailgun.net/v3/mg.acme.test/events/page0" },
  };
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
  ["GET", /^\/v3\/([\w.-]+)\/events$/, events],
  ["POST", /^\/v3\/lists\/([^/]+)\/members$/, addMember],
];
