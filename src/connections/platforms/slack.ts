import { z } from "@hono/zod-openapi";
import { PlatformError, baseUrlField, definePlatform, platformTool, secret } from "./types";

type SlackConfig = { bot_token: string; default_channel?: string; base_url?: string };

const AUTH_ERRORS: Record<string, "error" | "expired"> = {
  invalid_auth: "error",
  not_authed: "error",
  account_inactive: "error",
  token_revoked: "error",
  token_expired: "expired",
};

export const slack = definePlatform<SlackConfig>({
  id: "slack",
  name: "Slack",
  description: "Post messages to channels and look up channels in a Slack workspace, with a bot token (xoxb-…).",
  category: "messaging",
  authKind: "bot_token",
  config: z.object({
    bot_token: secret("Bot User OAuth Token (xoxb-…), from your Slack app's OAuth & Permissions page."),
    default_channel: z.string().max(100).optional().meta({ description: "Channel ID or #name used when a tool call names none." }),
    base_url: baseUrlField,
  }),
  secretFields: ["bot_token"],
  defaultBaseUrl: "https://slack.com/api",
  authHeaders: (config) => ({ Authorization: `Bearer ${config.bot_token}` }),
  // Slack answers 200 with {ok: false, error} for every failure.
  inspect(status, body) {
    if (body && typeof body === "object" && body.ok === false) {
      const code = String(body.error ?? "unknown_error");
      return new PlatformError(`Slack refused the call: ${code}`, status, AUTH_ERRORS[code]);
    }
    return undefined;
  },
  async test(client) {
    const info = await client.request<{ team: string; user: string }>({ method: "POST", path: "/auth.test" });
    return `Connected to workspace ${info.team} as ${info.user}.`;
  },
  tools: [
    platformTool({
      action: "send_message",
      title: "Send a Slack message",
      description: "Posts a message to a channel (chat.postMessage). Supports mrkdwn text and an optional thread.",
      input: z.object({
        channel: z.string().max(100).optional().describe("Channel ID or #name; defaults to the connection's default_channel."),
        text: z.string().min(1).max(40_000),
        thread_ts: z.string().max(50).optional(),
      }),
      async run(client, args) {
        const channel = args.channel ?? client.config.default_channel;
        if (!channel) throw new PlatformError("Name a channel, or set default_channel on the connection.", 400);
        const sent = await client.request<{ channel: string; ts: string }>({
          method: "POST",
          path: "/chat.postMessage",
          body: { channel, text: args.text, ...(args.thread_ts ? { thread_ts: args.thread_ts } : {}) },
        });
        return { channel: sent.channel, ts: sent.ts };
      },
    }),
    platformTool({
      action: "list_channels",
      title: "List Slack channels",
      description: "Lists public channels the bot can see (conversations.list).",
      input: z.object({ limit: z.number().int().min(1).max(1000).default(100), cursor: z.string().max(200).optional() }),
      async run(client, args) {
        const page = await client.request<{ channels: { id: string; name: string; is_member: boolean }[]; response_metadata?: { next_cursor?: string } }>({
          method: "GET",
          path: "/conversations.list",
          query: { limit: args.limit, cursor: args.cursor, exclude_archived: true, types: "public_channel" },
        });
        return {
          channels: page.channels.map((c) => ({ id: c.id, name: c.name, is_member: c.is_member })),
          next_cursor: page.response_metadata?.next_cursor || null,
        };
      },
    }),
  ],
});
