// Postmark's API (postmarkapp.com/developer): PascalCase JSON, the server token in
// X-Postmark-Server-Token, {ErrorCode, Message} refusals with 422 (300: invalid request, 406:
// inactive recipient), lists paged by count and offset with TotalCount.
import { Answer, pageOf } from "../fake-kit.mjs";

const refuse = (code, message) => new Answer(422, { ErrorCode: code, Message: message });

function send(req) {
  const body = req.body ?? {};
  if (!body.From) return refuse(300, "Invalid 'From' address: ''.");
  if (String(body.To).includes("inactive@")) return refuse(406, "You tried to send to recipient(s) that have been marked as inactive.");
  if (req.path === "/email/withTemplate" && !body.TemplateId && !body.TemplateAlias)
    return refuse(1101, "The 'TemplateId' or 'TemplateAlias' must be specified.");
  return { To: body.To, SubmittedAt: "2026-11-22T09:00:00.1234567-05:00", MessageID: "b7bc2f4a-e38e-4336-af7d-e6c392c2f817", ErrorCode: 0, Message: "OK" };
}

const OUTBOUND = [3, 2, 1].map((n) => ({
  MessageID: `msg-${n}`,
  To: [{ Email: `user${n}@example.com`, Name: null }],
  Subject: `Receipt ${n}`,
  Status: "Sent",
  Tag: n === 2 ? "receipt" : "",
  ReceivedAt: `2026-11-2${n}T09:00:00-05:00`,
}));

const BOUNCES = [
  {
    ID: 692560173,
    Type: "HardBounce",
    Email: "gone@example.com",
    Description: "The server was unable to deliver your message.",
    BouncedAt: "2026-11-21T10:00:00-05:00",
    Inactive: true,
  },
];

export const postmarkRoutes = [
  ["GET", /^\/server$/, () => ({ ID: 1, Name: "Acme Transactional" })],
  ["POST", /^\/email$/, send],
  ["POST", /^\/email\/withTemplate$/, send],
  [
    "GET",
    /^\/messages\/outbound$/,
    (req) => {
      const found = OUTBOUND.filter((m) => !req.query.recipient || m.To[0].Email === req.query.recipient);
      return { TotalCount: found.length, Messages: pageOf(found, req.query.offset, req.query.count).page };
    },
  ],
  ["GET", /^\/bounces$/, (req) => (req.query.count ? { TotalCount: BOUNCES.length, Bounces: BOUNCES } : refuse(605, "The 'count' parameter is required."))],
];
