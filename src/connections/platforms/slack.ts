import { z } from "@hono/zod-openapi";
import { PlatformError, type PlatformFailure, baseUrlField, definePlatform, platformTool, secret } from "./types";
import { oauthConfigFields } from "./oauth-spec";
import { slackThreadTools } from "./slack-threads";

type SlackConfig = { bot_token: string; signing_secret?: string; default_channel?: string; base_url?: string };

/** The app's signing secret: it verifies the approval buttons' clicks (POST /v1/hooks/slack/interactions). */
const signingSecret = () =>
  secret("Signing Secret, from your Slack app's Basic Information page: verifies clicks on approval buttons (Interactivity).").optional();

const AUTH_ERRORS: Record<string, "error" | "expired"> = {
  invalid_auth: "error",
  not_authed: "error",
  account_inactive: "error",
  token_revoked: "error",
  token_expired: "expired",
};

/** Slack's own failures that pass: its rate limit and its faults (api.slack.com/web#errors). */
const TRANSIENT = new Set(["ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"]);

/** What to do about the errors people meet most; the code alone says little to someone new to Slack. */
const HINTS: Record<string, string> = {
  not_in_channel: "the app is not a member of this channel; invite it there (/invite @your-app) or use another channel",
  channel_not_found: "no channel with this ID or name that the app can see",
  is_archived: "the channel is archived",
  msg_too_long: "the message is too long",
  no_text: "the message has no text",
  ratelimited: "Slack is limiting calls; the step may try again later",
};

/**
 * Slack's error reader: every Web API failure is `{ok: false, error: "<code>"}`, mostly with
 * status 200, so the code is what Slack "answered". `missing_scope` names the scope needed.
 */
function readSlackError(status: number, body: any): PlatformFailure | undefined {
  if (!body || typeof body !== "object" || body.ok !== false) return undefined;
  const code = String(body.error ?? "unknown_error").slice(0, 100);
  const needed = code === "missing_scope" && typeof body.needed === "string" ? `the app needs the ${body.needed.slice(0, 200)} scope` : undefined;
  const hint = needed ?? HINTS[code];
  return {
    answer: status >= 400 ? undefined : code,
    message: status >= 400 ? `${code}${hint ? ` (${hint})` : ""}` : (hint ?? ""),
    code,
    authFailure: AUTH_ERRORS[code] ?? null,
    retryable: TRANSIENT.has(code) || undefined,
  };
}

export const slack = definePlatform<SlackConfig>({
  id: "slack",
  name: "Slack",
  description: "Post messages to channels and look up channels in a Slack workspace, with a bot token (xoxb-…).",
  category: "messaging",
  authKind: "bot_token",
  config: z.object({
    bot_token: secret("Bot User OAuth Token (xoxb-…), from your Slack app's OAuth & Permissions page."),
    signing_secret: signingSecret(),
    default_channel: z.string().max(100).optional().meta({ description: "Channel ID or #name used when a tool call names none." }),
    base_url: baseUrlField,
  }),
  secretFields: ["bot_token", "signing_secret"],
  // "Connect with Slack": OAuth v2 for a bot token (api.slack.com/authentication/oauth-v2); with
  // token rotation on, Slack also issues a refresh token and the bot token expires after 12 h.
  oauth: {
    authorizeUrl: "https://slack.com/oauth/v2/authorize",
    tokenUrl: "https://slack.com/api/oauth.v2.access",
    defaultScopes: ["chat:write", "channels:read"],
    scopeSeparator: ",",
    tokenTypes: ["bot"],
    tokenField: "bot_token",
    deploymentClient: true,
    config: z.object({
      default_channel: z.string().max(100).optional().meta({ description: "Channel ID or #name used when a tool call names none." }),
      base_url: baseUrlField,
      signing_secret: signingSecret(),
      ...oauthConfigFields,
    }),
    secretFields: ["client_secret", "signing_secret"],
  },
  defaultBaseUrl: "https://slack.com/api",
  authHeaders: (config) => ({ Authorization: `Bearer ${config.bot_token}` }),
  readError: readSlackError,
  async test(client) {
    const info = await client.request<{ team: string; user: string }>({ method: "POST", path: "/auth.test" });
    return `Connected to workspace ${info.team} as ${info.user}.`;
  },
  tools: [
    platformTool({
      action: "send_message",
      effect: "write",
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
      effect: "read",
      title: "List Slack channels",
      description: "Lists public channels the bot can see (conversations.list), and with include_private the private ones it is in (groups:read scope).",
      input: z.object({
        limit: z.number().int().min(1).max(1000).default(100),
        cursor: z.string().max(200).optional(),
        include_private: z.boolean().default(false),
      }),
      async run(client, args) {
        const page = await client.request<{
          channels: { id: string; name: string; is_member: boolean; is_private?: boolean }[];
          response_metadata?: { next_cursor?: string };
        }>({
          method: "GET",
          path: "/conversations.list",
          query: {
            limit: args.limit,
            cursor: args.cursor,
            exclude_archived: true,
            types: args.include_private ? "public_channel,private_channel" : "public_channel",
          },
        });
        return {
          channels: page.channels.map((c) => ({
            id: c.id,
            name: c.name,
            is_member: c.is_member,
            ...(args.include_private ? { is_private: c.is_private ?? false } : {}),
          })),
          next_cursor: page.response_metadata?.next_cursor || null,
        };
      },
    }),
    ...slackThreadTools,
  ],
});
