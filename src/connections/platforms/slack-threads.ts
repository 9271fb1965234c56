import { z } from "@hono/zod-openapi";
import { requestTool } from "./request-tool";

// Slack's threads and reactions (api.slack.com/methods/conversations.replies, reactions.add):
// one Web API call each. Private channels need the groups:history / groups:read scopes.

const Channel = z.string().regex(/^[CGD][A-Z0-9]{2,20}$/, "A channel ID (C…, G… or D…).");
const Ts = z.string().regex(/^\d{1,12}\.\d{1,8}$/, "A message timestamp, e.g. 1763800000.000100.");

export const slackThreadTools = [
  requestTool({
    action: "get_thread",
    effect: "read",
    title: "Read a Slack thread",
    description: "Reads a thread's parent message and replies, oldest first (conversations.replies); pass next_cursor for more.",
    input: z.object({ channel: Channel, thread_ts: Ts, limit: z.number().int().min(1).max(1000).default(100), cursor: z.string().max(500).optional() }),
    method: "GET",
    path: "/conversations.replies",
    query: (args) => ({ channel: args.channel, ts: args.thread_ts, limit: args.limit, cursor: args.cursor }),
    result: (a) => ({
      messages: (a.messages ?? []).map((m: any) => ({ ts: m.ts, user: m.user ?? m.bot_id ?? null, text: m.text ?? "", reply_count: m.reply_count ?? null })),
      next_cursor: a.response_metadata?.next_cursor || null,
    }),
  }),
  requestTool({
    action: "add_reaction",
    effect: "write",
    title: "React to a Slack message",
    description: "Adds an emoji reaction to a message (reactions.add), e.g. white_check_mark to mark a request handled.",
    input: z.object({
      channel: Channel,
      timestamp: Ts,
      name: z
        .string()
        .regex(/^[a-z0-9_+'-]{1,100}$/)
        .describe("The emoji's name without colons, e.g. eyes."),
    }),
    method: "POST",
    path: "/reactions.add",
    result: () => ({ added: true }),
  }),
];
