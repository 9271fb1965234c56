// The X API v2 (docs.x.com/x-api): one account, @ada_hub, whose three earlier posts every scenario
// starts with; posts created in a scenario join its timeline (newest first, as X lists them) and
// deleted ones leave it. Only the fields a request asks for (user.fields, tweet.fields) come back,
// beside the defaults. Refusals are X's problems {title, detail, type, status}: 401 Unauthorized for
// a token the fake OAuth provider did not issue ("at_…"), 403 for duplicate content, 400
// invalid-request for a bad page size or pagination token; a missing post or user is X's 200 with
// {errors: [{title: "Not Found Error", …}]} and no data.
import { Answer, b64, unb64 } from "../fake-kit.mjs";

export const X_USER = {
  id: "1580661436132757506",
  name: "Ada Lovelace",
  username: "ada_hub",
  description: "Analytical engines.",
  public_metrics: { followers_count: 120, following_count: 80, tweet_count: 3, listed_count: 1, like_count: 42 },
};

const SEED = [
  { id: "1860000000000000003", text: "Third post", created_at: "2026-11-20T10:00:00.000Z" },
  { id: "1860000000000000002", text: "Second post", created_at: "2026-11-19T10:00:00.000Z" },
  { id: "1860000000000000001", text: "First post", created_at: "2026-11-18T10:00:00.000Z" },
];
const timelines = new Map();
/** Posts each scenario created, for their ids. */
const created = new Map();

/** A scenario's posts, newest first. */
function timeline(scenario) {
  if (!timelines.has(scenario))
    timelines.set(
      scenario,
      SEED.map((p) => ({ ...p })),
    );
  return timelines.get(scenario);
}

const problem = (status, title, detail, type = "about:blank", extra = {}) => new Answer(status, { ...extra, title, detail, type, status });

function unauthorized(req) {
  if (!String(req.headers.authorization ?? "").startsWith("Bearer at_")) return problem(401, "Unauthorized", "Unauthorized");
  return undefined;
}

const notFound = (kind, id) => ({
  errors: [
    {
      value: id,
      detail: `Could not find ${kind} with id: [${id}].`,
      title: "Not Found Error",
      resource_type: kind,
      parameter: "id",
      resource_id: id,
      type: "https://api.twitter.com/2/problems/resource-not-found",
    },
  ],
});

const invalid = (name, value, message) =>
  new Answer(400, {
    errors: [{ parameters: { [name]: [value] }, message }],
    title: "Invalid Request",
    detail: "One or more parameters to your request was invalid.",
    type: "https://api.twitter.com/2/problems/invalid-request",
  });

/** The post as X answers it: id, text and edit_history_tweet_ids by default, other fields when asked. */
function shaped(p, fields) {
  const asked = new Set(String(fields ?? "").split(","));
  const out = { id: p.id, text: p.text, edit_history_tweet_ids: [p.id] };
  if (asked.has("created_at")) out.created_at = p.created_at;
  if (asked.has("author_id")) out.author_id = X_USER.id;
  if (asked.has("conversation_id")) out.conversation_id = p.conversation_id ?? p.id;
  if (asked.has("public_metrics"))
    out.public_metrics = { retweet_count: 2, reply_count: 1, like_count: 7, quote_count: 0, bookmark_count: 0, impression_count: 90 };
  return out;
}

function me(req) {
  const asked = new Set(String(req.query["user.fields"] ?? "").split(","));
  const { id, name, username } = X_USER;
  return {
    data: {
      id,
      name,
      username,
      ...(asked.has("description") ? { description: X_USER.description } : {}),
      ...(asked.has("public_metrics") ? { public_metrics: X_USER.public_metrics } : {}),
    },
  };
}

function create(req) {
  const body = req.body ?? {};
  const posts = timeline(req.scenario);
  if (posts.some((p) => p.text === body.text)) return problem(403, "Forbidden", "You are not allowed to create a Tweet with duplicate content.");
  created.set(req.scenario, (created.get(req.scenario) ?? 0) + 1);
  const id = String(1870000000000000000n + BigInt(created.get(req.scenario)));
  const inReplyTo = body.reply?.in_reply_to_tweet_id;
  const parent = inReplyTo && posts.find((p) => p.id === inReplyTo);
  posts.unshift({ id, text: body.text, created_at: "2026-11-27T12:00:00.000Z", conversation_id: parent ? (parent.conversation_id ?? parent.id) : id });
  return new Answer(201, { data: { id, edit_history_tweet_ids: [id], text: body.text } });
}

function remove(req, id) {
  const posts = timeline(req.scenario);
  const at = posts.findIndex((p) => p.id === id);
  if (at >= 0) posts.splice(at, 1);
  // X's reference documents only {data: {deleted: true}}; the fake says false for a post it never had.
  return { data: { deleted: at >= 0 } };
}

function lookup(req, id) {
  const found = timeline(req.scenario).find((p) => p.id === id);
  return found ? { data: shaped(found, req.query["tweet.fields"]) } : notFound("tweet", id);
}

function list(req, userId) {
  if (userId !== X_USER.id) return notFound("user", userId);
  const size = Number(req.query.max_results ?? 10);
  if (!Number.isInteger(size) || size < 5 || size > 100)
    return invalid(
      "max_results",
      String(req.query.max_results),
      `The \`max_results\` query parameter value [${req.query.max_results}] is not between 5 and 100`,
    );
  let start = 0;
  const token = req.query.pagination_token;
  if (token !== undefined) {
    const decoded = /^page:(\d+)$/.exec(unb64(token));
    if (!decoded) return invalid("pagination_token", token, `The \`pagination_token\` query parameter value [${token}] is not valid`);
    start = Number(decoded[1]);
  }
  const excluded = new Set(String(req.query.exclude ?? "").split(","));
  const posts = timeline(req.scenario).filter((p) => !(excluded.has("replies") && p.conversation_id && p.conversation_id !== p.id));
  const page = posts.slice(start, start + size).map((p) => shaped(p, req.query["tweet.fields"]));
  if (!page.length) return { meta: { result_count: 0 } };
  const more = start + size < posts.length;
  return {
    data: page,
    meta: {
      result_count: page.length,
      newest_id: page[0].id,
      oldest_id: page[page.length - 1].id,
      ...(more ? { next_token: b64(`page:${start + size}`).replaceAll("=", "") } : {}),
    },
  };
}

export const xRoutes = [
  ["GET", /^\/2\/users\/me$/, (req) => unauthorized(req) ?? me(req)],
  ["POST", /^\/2\/tweets$/, (req) => unauthorized(req) ?? create(req)],
  ["DELETE", /^\/2\/tweets\/(\d+)$/, (req, m) => unauthorized(req) ?? remove(req, m[1])],
  ["GET", /^\/2\/tweets\/(\d+)$/, (req, m) => unauthorized(req) ?? lookup(req, m[1])],
  ["GET", /^\/2\/users\/(\d+)\/tweets$/, (req, m) => unauthorized(req) ?? list(req, m[1])],
];
