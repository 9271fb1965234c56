// Slack's conversations.replies and reactions.add (api.slack.com/methods): {ok: true, …} or
// {ok: false, error} with status 200 (already_reacted, thread_not_found).
const THREAD = [
  { ts: "1763800000.000100", user: "U0ADA", text: "Can someone check the invoice?", reply_count: 2, thread_ts: "1763800000.000100" },
  { ts: "1763800050.000200", user: "U0GRACE", text: "On it", thread_ts: "1763800000.000100" },
  { ts: "1763800090.000300", bot_id: "B0HUB", text: "Invoice sent", thread_ts: "1763800000.000100" },
];

export const slackThreadRoutes = [
  [
    "GET",
    /^\/conversations\.replies$/,
    (req) => {
      if (req.query.ts !== THREAD[0].ts) return { ok: false, error: "thread_not_found" };
      const start = Number(req.query.cursor?.replace("dGhyZWFk", "") || 0);
      const limit = Number(req.query.limit ?? 1000);
      const page = THREAD.slice(start, start + limit);
      const next = start + limit < THREAD.length ? `dGhyZWFk${start + limit}` : "";
      return { ok: true, messages: page, has_more: Boolean(next), response_metadata: { next_cursor: next } };
    },
  ],
  ["POST", /^\/reactions\.add$/, (req) => (req.body?.name === "eyes" ? { ok: false, error: "already_reacted" } : { ok: true })],
];
