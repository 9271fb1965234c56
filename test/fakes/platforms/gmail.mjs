// The Gmail API (developers.google.com/gmail/api/reference/rest): send takes the RFC 5322 message
// base64url-encoded as `raw`; lists are {messages: [{id, threadId}], nextPageToken,
// resultSizeEstimate}, newest first; metadata reads give headers as [{name, value}].
import { pageOf } from "../fake-kit.mjs";
import { googleError } from "./google-errors.mjs";

const INBOX = [
  { id: "18c3", threadId: "18c3", from: "Grace <grace@example.com>", subject: "Invoice 42", internalDate: "1763800300000", labelIds: ["INBOX", "UNREAD"] },
  { id: "18c2", threadId: "18c1", from: "Ada <ada@example.com>", subject: "Re: Launch", internalDate: "1763800200000", labelIds: ["INBOX"] },
  { id: "18c1", threadId: "18c1", from: "Linus <linus@example.com>", subject: "Launch", internalDate: "1763800100000", labelIds: ["INBOX"] },
];

const notFound = () => googleError(404, "NOT_FOUND", "Requested entity was not found.", "notFound");

function send(req) {
  const raw = String(req.body?.raw ?? "");
  const message = Buffer.from(raw.replaceAll("-", "+").replaceAll("_", "/"), "base64").toString("utf8");
  if (!/^To: .+@/m.test(message)) return googleError(400, "INVALID_ARGUMENT", "Invalid To header", "invalidArgument");
  return { id: "18d0", threadId: req.body?.threadId ?? "18d0", labelIds: ["SENT"] };
}

function list(req) {
  const from = req.query.q?.match(/from:(\S+)/)?.[1];
  const found = INBOX.filter((m) => (!from || m.from.includes(from)) && (!req.query.labelIds || m.labelIds.includes(req.query.labelIds)));
  const { page, next } = pageOf(found, req.query.pageToken, req.query.maxResults ?? 100);
  return {
    ...(page.length && found.length ? { messages: page.map((m) => ({ id: m.id, threadId: m.threadId })) } : {}),
    ...(next === null ? {} : { nextPageToken: String(next) }),
    resultSizeEstimate: found.length,
  };
}

function get(_req, m) {
  const message = INBOX.find((item) => item.id === m[1]);
  if (!message) return notFound();
  return {
    id: message.id,
    threadId: message.threadId,
    labelIds: message.labelIds,
    snippet: `About ${message.subject}`,
    internalDate: message.internalDate,
    payload: {
      mimeType: "text/plain",
      headers: [
        { name: "From", value: message.from },
        { name: "To", value: "me@example.com" },
        { name: "Subject", value: message.subject },
        { name: "Date", value: new Date(Number(message.internalDate)).toUTCString() },
      ],
    },
  };
}

function modify(req, m) {
  const message = INBOX.find((item) => item.id === m[1]);
  if (!message) return notFound();
  const labels = new Set(message.labelIds);
  for (const label of req.body?.addLabelIds ?? []) labels.add(label);
  for (const label of req.body?.removeLabelIds ?? []) labels.delete(label);
  return { id: message.id, threadId: message.threadId, labelIds: [...labels] };
}

export const gmailRoutes = [
  ["GET", /^\/gmail\/v1\/users\/me\/profile$/, () => ({ emailAddress: "me@example.com", messagesTotal: 3, threadsTotal: 2, historyId: "9001" })],
  ["POST", /^\/gmail\/v1\/users\/me\/messages\/send$/, send],
  ["GET", /^\/gmail\/v1\/users\/me\/messages$/, list],
  ["GET", /^\/gmail\/v1\/users\/me\/messages\/(\w+)$/, get],
  ["POST", /^\/gmail\/v1\/users\/me\/messages\/(\w+)\/modify$/, modify],
];
