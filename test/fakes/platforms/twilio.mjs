// Twilio's REST API 2010-04-01 (twilio.com/docs/messaging/api/message-resource): Basic auth as
// AccountSid:AuthToken, form-encoded writes, 201 with the Message resource (snake_case), lists
// with next_page_uri carrying Page and PageToken, errors as {code, message, more_info, status}.
import { Answer, basicAuth, formOf } from "../fake-kit.mjs";

const twilioError = (status, code, message) => new Answer(status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

const resource = (sid, fields) => ({
  sid,
  account_sid: fields.account_sid,
  to: fields.to,
  from: fields.from,
  body: fields.body,
  status: fields.status ?? "queued",
  direction: fields.direction ?? "outbound-api",
  num_segments: "1",
  error_code: null,
  price: null,
  date_created: "Sat, 22 Nov 2026 09:00:00 +0000",
  uri: `/2010-04-01/Accounts/${fields.account_sid}/Messages/${sid}.json`,
});

const INBOUND = (account) =>
  [3, 2, 1].map((n) =>
    resource(`SM${String(n).repeat(32)}`, {
      account_sid: account,
      to: "+14155550100",
      from: `+1415555010${n}`,
      body: `Reply ${n}`,
      status: "received",
      direction: "inbound",
    }),
  );

/** The request's account, when its Basic credentials name the account in the path; else Twilio's 401. */
function account(req, sid) {
  const auth = basicAuth(req);
  if (auth?.user !== sid || !auth.password) return { error: twilioError(401, 20003, "Authenticate") };
  return {};
}

function create(req, m) {
  const { error } = account(req, m[1]);
  if (error) return error;
  const form = formOf(req);
  if (!/^(whatsapp:)?\+[1-9]\d{6,14}$/.test(form.To ?? "")) return twilioError(400, 21211, `The 'To' number ${form.To} is not a valid phone number.`);
  if (form.To.startsWith("+1555")) return twilioError(400, 21608, "The number is unverified. Trial accounts may only send messages to verified numbers.");
  if (!form.From && !form.MessagingServiceSid) return twilioError(400, 21603, "The 'From' phone number is required.");
  return new Answer(201, resource("SM0123456789abcdef0123456789abcdef", { account_sid: m[1], to: form.To, from: form.From ?? null, body: form.Body ?? "" }));
}

function list(req, m) {
  const { error } = account(req, m[1]);
  if (error) return error;
  const found = INBOUND(m[1]).filter((x) => (!req.query.To || x.to === req.query.To) && (!req.query.From || x.from === req.query.From));
  const page = Number(req.query.Page ?? 0);
  const size = Number(req.query.PageSize ?? 50);
  const items = found.slice(page * size, (page + 1) * size);
  const more = (page + 1) * size < found.length;
  return {
    messages: items,
    page,
    page_size: size,
    uri: `/2010-04-01/Accounts/${m[1]}/Messages.json?PageSize=${size}&Page=${page}`,
    next_page_uri: more ? `/2010-04-01/Accounts/${m[1]}/Messages.json?PageSize=${size}&Page=${page + 1}&PageToken=PA${items.at(-1).sid}` : null,
  };
}

export const twilioRoutes = [
  ["GET", /^\/2010-04-01\/Accounts\/(AC\w+)\.json$/, (_req, m) => ({ sid: m[1], friendly_name: "Acme", status: "active" })],
  ["POST", /^\/2010-04-01\/Accounts\/(AC\w+)\/Messages\.json$/, create],
  ["GET", /^\/2010-04-01\/Accounts\/(AC\w+)\/Messages\.json$/, list],
  [
    "GET",
    /^\/2010-04-01\/Accounts\/(AC\w+)\/Messages\/(\w+)\.json$/,
    (req, m) =>
      account(req, m[1]).error ??
      INBOUND(m[1]).find((x) => x.sid === m[2]) ??
      twilioError(404, 20404, `The requested resource /2010-04-01/Accounts/${m[1]}/Messages/${m[2]}.json was not found`),
  ],
];
