// SendGrid's v3 API (docs.sendgrid.com/api-reference): mail/send answers 202 with an empty body
// (the id in X-Message-Id), marketing contacts are upserted by a background job, lists page by
// page_token with _metadata.next, errors are {errors: [{message, field, help}]}.
import { Answer, pageOf } from "../fake-kit.mjs";

const sgError = (status, message, field) => new Answer(status, { errors: [{ message, field: field ?? null, help: null }] });

const LISTS = [
  { id: "0c4c1a3d-1b1f-4e4e-9a51-0a1b2c3d4e51", name: "Newsletter", contact_count: 1200 },
  { id: "0c4c1a3d-1b1f-4e4e-9a51-0a1b2c3d4e52", name: "Customers", contact_count: 300 },
  { id: "0c4c1a3d-1b1f-4e4e-9a51-0a1b2c3d4e53", name: "Webinar", contact_count: 85 },
];

function send(req) {
  const body = req.body ?? {};
  if (!body.from?.email) return sgError(400, "The from object must be provided for every email send.", "from");
  if (!body.personalizations?.[0]?.to?.length)
    return sgError(400, "The personalizations field is required and must have at least one personalization.", "personalizations");
  if (!body.template_id && !body.content?.length) return sgError(400, "Unless a valid template_id is provided, the content parameter is required.", "content");
  return new Answer(202, "", { "X-Message-Id": "W9ap3sXuRxSZhQ0qrTgpfA" });
}

function lists(req) {
  const { page, next } = pageOf(LISTS, req.query.page_token ? Number(req.query.page_token.slice(1)) : 0, req.query.page_size ?? 100);
  const self = "https://api.sendgrid.com/v3/marketing/lists";
  return {
    result: page,
    _metadata: {
      self: `${self}?page_size=${req.query.page_size ?? 100}`,
      ...(next === null ? {} : { next: `${self}?page_size=${req.query.page_size}&page_token=p${next}` }),
      count: LISTS.length,
    },
  };
}

function search(req) {
  const known = (req.body?.emails ?? []).filter((email) => email.endsWith("@known.example"));
  if (!known.length) return sgError(404, "No contacts found");
  return {
    result: Object.fromEntries(
      (req.body?.emails ?? []).map((email) =>
        known.includes(email)
          ? [email, { contact: { id: `c-${email.split("@")[0]}`, email, first_name: "Ada", last_name: null, list_ids: [LISTS[0].id] } }]
          : [email, { error: "contact not found" }],
      ),
    ),
  };
}

export const sendgridRoutes = [
  ["GET", /^\/v3\/scopes$/, () => ({ scopes: ["mail.send", "marketing.read"] })],
  ["POST", /^\/v3\/mail\/send$/, send],
  [
    "PUT",
    /^\/v3\/marketing\/contacts$/,
    (req) =>
      req.body?.contacts?.length ? new Answer(202, { job_id: "2387e363-4104-4225-8960-4a5758492351" }) : sgError(400, "contacts is required", "contacts"),
  ],
  ["GET", /^\/v3\/marketing\/lists$/, lists],
  ["POST", /^\/v3\/marketing\/contacts\/search\/emails$/, search],
];
