import { z } from "@hono/zod-openapi";
import { base64url, sha256 } from "../../lib/crypto";
import { secondsField, text } from "./failures";
import { PlatformError, type PlatformFailure, baseUrlField, definePlatform, platformTool, secret } from "./types";

type DiscordConfig = { bot_token: string; default_channel_id?: string; base_url?: string };

/**
 * Discord's error reader: `{code, message, errors?}`, where `errors` nests field problems
 * (`{content: {_errors: [{code, message}]}}` for 50035 Invalid Form Body), and a 429's
 * `{message, retry_after, global}` says how many seconds to wait
 * (discord.com/developers/docs/topics/opcodes-and-status-codes, …/topics/rate-limits).
 */
function readDiscordError(status: number, body: any): PlatformFailure | undefined {
  if (status < 400 || !body || typeof body !== "object" || typeof body.message !== "string") return undefined;
  const fields = fieldErrors(body.errors);
  const code = typeof body.code === "number" ? String(body.code) : undefined;
  return {
    message: [text(body.message, 300), ...fields].filter(Boolean).join("; "),
    code,
    authFailure: status === 401 ? "error" : null,
    retryAfterSeconds: secondsField(body.retry_after),
  };
}

/** "content: Must be 2000 or fewer in length." from Discord's nested errors; a few, a few levels deep. */
function fieldErrors(errors: unknown, path = "", found: string[] = [], depth = 0): string[] {
  if (!errors || typeof errors !== "object" || depth > 4 || found.length >= 5) return found;
  for (const [key, value] of Object.entries(errors).slice(0, 20)) {
    if (key === "_errors" && Array.isArray(value)) {
      for (const e of value.slice(0, 5 - found.length)) found.push(`${path || "body"}: ${text((e as any)?.message, 200) ?? "invalid"}`);
    } else fieldErrors(value, path ? `${path}.${key}` : key, found, depth + 1);
  }
  return found;
}

/**
 * Discord's idempotency: a message `nonce` (25 characters at most) with `enforce_nonce`, which
 * returns the message already created with it in the last few minutes instead of posting again.
 */
async function nonceOf(idempotencyKey: string): Promise<string> {
  return base64url(await sha256(idempotencyKey)).slice(0, 25);
}

export const discord = definePlatform<DiscordConfig>({
  id: "discord",
  name: "Discord",
  description: "Send messages to Discord channels and list a server's channels, with a bot token.",
  category: "messaging",
  authKind: "bot_token",
  config: z.object({
    bot_token: secret("The bot's token, from the Discord developer portal (Bot → Token)."),
    default_channel_id: z
      .string()
      .regex(/^\d{5,25}$/)
      .optional(),
    base_url: baseUrlField,
  }),
  secretFields: ["bot_token"],
  defaultBaseUrl: "https://discord.com/api/v10",
  // Discord asks bots to identify themselves as "DiscordBot (url, version)".
  authHeaders: (config) => ({ Authorization: `Bot ${config.bot_token}`, "User-Agent": "DiscordBot (https://github.com/agent-automation-hub, 1.0)" }),
  readError: readDiscordError,
  async test(client) {
    const me = await client.request<{ username: string }>({ method: "GET", path: "/users/@me" });
    return `Connected as bot ${me.username}.`;
  },
  tools: [
    platformTool({
      action: "send_message",
      effect: "write",
      title: "Send a Discord message",
      description:
        "Posts a message to a channel (POST /channels/{channel_id}/messages). In a workflow step the message carries a nonce Discord enforces, so a retried step posts it once.",
      input: z.object({
        channel_id: z
          .string()
          .regex(/^\d{5,25}$/)
          .optional(),
        content: z.string().min(1).max(2000),
      }),
      async run(client, args, ctx) {
        const channelId = args.channel_id ?? client.config.default_channel_id;
        if (!channelId) throw new PlatformError("Name a channel_id, or set default_channel_id on the connection.", 400);
        const once = ctx.idempotencyKey ? { nonce: await nonceOf(ctx.idempotencyKey), enforce_nonce: true } : {};
        const message = await client.request<{ id: string; channel_id: string }>({
          method: "POST",
          path: `/channels/${channelId}/messages`,
          body: { content: args.content, ...once },
        });
        return { id: message.id, channel_id: message.channel_id };
      },
    }),
    platformTool({
      action: "list_channels",
      effect: "read",
      title: "List Discord channels",
      description: "Lists the channels of a server (GET /guilds/{guild_id}/channels). Discord answers every channel at once, so `next_cursor` is always null.",
      input: z.object({ guild_id: z.string().regex(/^\d{5,25}$/) }),
      async run(client, args) {
        const channels = await client.request<{ id: string; name: string; type: number }[]>({ method: "GET", path: `/guilds/${args.guild_id}/channels` });
        return { channels: channels.map((c) => ({ id: c.id, name: c.name, type: c.type })), next_cursor: null };
      },
    }),
  ],
});
