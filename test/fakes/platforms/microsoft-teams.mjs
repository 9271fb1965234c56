// Microsoft Graph v1.0's Teams API (learn.microsoft.com/graph/api/resources/teams-api-overview),
// under /v1.0 as on graph.microsoft.com: the signed-in person (Ada) is in one team, TEAM, whose
// General channel holds three messages and whose Marketing channel none; messages posted and
// replied per scenario, listed newest first a page at a time with an @odata.nextLink carrying a
// $skiptoken. It fails as Graph does, {error: {code, message, innerError}}: 401
// InvalidAuthenticationToken without a bearer token the OAuth provider issued, 404 NotFound for a
// team, channel or message it does not have, 400 BadRequest for a message without content.
import { Answer, Store } from "../fake-kit.mjs";

export const TEAM = "172b0cce-e65d-44ce-9a49-91d9f2e8493a";
export const GENERAL = "19:561fbdbbfca848a484f0a6f00ce9dbbd@thread.tacv2";
export const MARKETING = "19:8ad58bb8e4b9434c96c7b6b52d5c4f3b@thread.tacv2";
const TENANT = "dcd219dd-bc68-4b9b-bf0b-4a33a796be35";
const ADA = {
  "@odata.type": "#microsoft.graph.teamworkUserIdentity",
  id: "8ea0e38b-efb3-4757-924a-5f94061cf8c2",
  displayName: "Ada Lovelace",
  userIdentityType: "aadUser",
  tenantId: TENANT,
};
const CHANNELS = [
  { id: GENERAL, displayName: "General", description: "Acme's whole team", membershipType: "standard" },
  { id: MARKETING, displayName: "Marketing", description: null, membershipType: "private" },
];

const posted = new Store();
let clock = 0;

const graphError = (status, code, message) =>
  new Answer(status, {
    error: {
      code,
      message,
      innerError: {
        date: "2026-04-22T09:40:00",
        "request-id": "b1f3a7e2-2c1d-4f0e-9a1b-3c4d5e6f7a8b",
        "client-request-id": "b1f3a7e2-2c1d-4f0e-9a1b-3c4d5e6f7a8b",
      },
    },
  });

function refused(req) {
  const header = String(req.headers.authorization ?? "");
  if (!header) return graphError(401, "InvalidAuthenticationToken", "Access token is empty.");
  if (!/^Bearer at_[\w-]+$/.test(header)) return graphError(401, "InvalidAuthenticationToken", "IDX14100: JWT is not well formed, there are no dots (.).");
  return undefined;
}

/** The channel a path names, or Graph's 404. */
function channelOf(teamId, channelId) {
  if (teamId !== TEAM) return { error: graphError(404, "NotFound", `No team found with Group Id ${teamId}`) };
  const channel = CHANNELS.find((c) => c.id === decodeURIComponent(channelId));
  return channel ? { channel } : { error: graphError(404, "NotFound", "Channel not found") };
}

const webUrl = (channelId, id, parent = id) =>
  `https://teams.microsoft.com/l/message/${encodeURIComponent(channelId)}/${id}?groupId=${TEAM}&tenantId=${TENANT}&createdTime=${id}&parentMessageId=${parent}`;

function chatMessage(channelId, { id, replyToId = null, subject = null, importance = "normal", body, from = ADA }) {
  return {
    id,
    replyToId,
    etag: id,
    messageType: "message",
    createdDateTime: new Date(Number(id)).toISOString(),
    lastModifiedDateTime: new Date(Number(id)).toISOString(),
    lastEditedDateTime: null,
    deletedDateTime: null,
    subject,
    summary: null,
    chatId: null,
    importance,
    locale: "en-us",
    webUrl: webUrl(channelId, id, replyToId ?? id),
    policyViolation: null,
    eventDetail: null,
    from: { application: null, device: null, user: from },
    body,
    channelIdentity: { teamId: TEAM, channelId },
    attachments: [],
    mentions: [],
    reactions: [],
  };
}

// General's messages before any scenario, newest first.
const SEEDED = [
  chatMessage(GENERAL, { id: "1776850200000", body: { contentType: "html", content: "<p>Launch at noon</p>" } }),
  chatMessage(GENERAL, { id: "1776850100000", subject: "Agenda", body: { contentType: "text", content: "Standup moved to 10:00" } }),
  chatMessage(GENERAL, {
    id: "1776850000000",
    body: { contentType: "text", content: "Welcome!" },
    from: { ...ADA, id: "5f2c0a4e-8b1d-4c3e-9f7a-6b5d4c3e2f1a", displayName: "Grace Hopper" },
  }),
];

const messagesOf = (scenario, channelId) => [
  ...posted.list(scenario).filter((m) => m.channelIdentity.channelId === channelId && !m.replyToId),
  ...(channelId === GENERAL ? SEEDED : []),
];

function post(req, m, parentId) {
  const { error } = channelOf(m[1], m[2]);
  if (error) return error;
  const channelId = decodeURIComponent(m[2]);
  if (parentId && !messagesOf(req.scenario, channelId).some((x) => x.id === parentId)) return graphError(404, "NotFound", `Message ${parentId} not found.`);
  const body = req.body?.body;
  if (!body?.content) return graphError(400, "BadRequest", "Missing body content");
  if (!["html", "text"].includes(body.contentType ?? "text")) return graphError(400, "BadRequest", `Invalid contentType: ${body.contentType}`);
  const id = String(1776850800000 + ++clock * 1000);
  const created = posted.add(
    req.scenario,
    chatMessage(channelId, { id, replyToId: parentId ?? null, subject: req.body.subject ?? null, importance: req.body.importance ?? "normal", body }),
  );
  return new Answer(201, {
    "@odata.context": `https://graph.microsoft.com/v1.0/$metadata#teams('${TEAM}')/channels('${encodeURIComponent(channelId)}')/messages/$entity`,
    ...created,
  });
}

// A skiptoken shaped like Graph's continuation tokens, with characters that must survive the trip.
const skipToken = (offset) => `+RID:~fake==#RT:1#TRC:${offset}#`;
const offsetOf = (token) => Number(/#TRC:(\d+)#/.exec(token ?? "")?.[1] ?? 0);

function list(req, m) {
  const { error } = channelOf(m[1], m[2]);
  if (error) return error;
  const channelId = decodeURIComponent(m[2]);
  const top = Number(req.query.$top ?? 20);
  if (!Number.isInteger(top) || top < 1 || top > 50) return graphError(400, "BadRequest", "Invalid page size requested. Page size must be between 1 and 50.");
  const all = messagesOf(req.scenario, channelId);
  const from = offsetOf(req.query.$skiptoken);
  const page = all.slice(from, from + top);
  const next = from + top < all.length ? new URL(`https://graph.microsoft.com/v1.0/teams/${TEAM}/channels/${encodeURIComponent(channelId)}/messages`) : null;
  if (next) {
    next.searchParams.set("$top", String(top));
    next.searchParams.set("$skiptoken", skipToken(from + top));
  }
  return {
    "@odata.context": `https://graph.microsoft.com/v1.0/$metadata#teams('${TEAM}')/channels('${encodeURIComponent(channelId)}')/messages`,
    "@odata.count": page.length,
    ...(next ? { "@odata.nextLink": next.toString() } : {}),
    value: page,
  };
}

const TEAM_PATH = String.raw`\/v1\.0\/teams\/([^/]+)\/channels\/([^/]+)`;

export const microsoftTeamsRoutes = [
  [
    "GET",
    /^\/v1\.0\/me$/,
    (req) =>
      refused(req) ?? {
        "@odata.context": "https://graph.microsoft.com/v1.0/$metadata#users/$entity",
        id: ADA.id,
        displayName: "Ada Lovelace",
        givenName: "Ada",
        surname: "Lovelace",
        mail: "ada@acme.example",
        userPrincipalName: "ada@acme.onmicrosoft.com",
        jobTitle: null,
        businessPhones: [],
      },
  ],
  [
    "GET",
    /^\/v1\.0\/me\/joinedTeams$/,
    (req) =>
      refused(req) ?? {
        "@odata.context": "https://graph.microsoft.com/v1.0/$metadata#teams",
        "@odata.count": 1,
        value: [{ id: TEAM, displayName: "Acme", description: "Everyone at Acme", isArchived: false, tenantId: TENANT }],
      },
  ],
  [
    "GET",
    /^\/v1\.0\/teams\/([^/]+)\/channels$/,
    (req, m) =>
      refused(req) ??
      (m[1] === TEAM
        ? {
            "@odata.context": `https://graph.microsoft.com/v1.0/$metadata#teams('${TEAM}')/channels`,
            "@odata.count": CHANNELS.length,
            value: CHANNELS.map((c) => ({
              ...c,
              createdDateTime: "2026-01-05T10:00:00Z",
              isFavoriteByDefault: null,
              email: "",
              tenantId: TENANT,
              webUrl: `https://teams.microsoft.com/l/channel/${encodeURIComponent(c.id)}/${encodeURIComponent(c.displayName)}?groupId=${TEAM}&tenantId=${TENANT}`,
            })),
          }
        : graphError(404, "NotFound", `No team found with Group Id ${m[1]}`)),
  ],
  ["GET", new RegExp(`^${TEAM_PATH}\\/messages$`), (req, m) => refused(req) ?? list(req, m)],
  ["POST", new RegExp(`^${TEAM_PATH}\\/messages$`), (req, m) => refused(req) ?? post(req, m)],
  ["POST", new RegExp(`^${TEAM_PATH}\\/messages\\/(\\d+)\\/replies$`), (req, m) => refused(req) ?? post(req, m, m[3])],
];
