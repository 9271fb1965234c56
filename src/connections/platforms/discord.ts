import { z } from "@hono/zod-openapi";
import { PlatformError, baseUrlField, definePlatform, platformTool, secret } from "./types";

type DiscordConfig = { bot_token: string; default_channel_id?: string; base_url?: string };

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
  async test(client) {
    const me = await client.request<{ username: string }>({ method: "GET", path: "/users/@me" });
    return `Connected as bot ${me.username}.`;
  },
  tools: [
    platformTool({
      action: "send_message",
      title: "Send a Discord message",
      description: "Posts a message to a channel (POST /channels/{channel_id}/messages).",
      input: z.object({
        channel_id: z
          .string()
          .regex(/^\d{5,25}$/)
          .optional(),
        content: z.string().min(1).max(2000),
      }),
      async run(client, args) {
        const channelId = args.channel_id ?? client.config.default_channel_id;
        if (!channelId) throw new PlatformError("Name a channel_id, or set default_channel_id on the connection.", 400);
        const message = await client.request<{ id: string; channel_id: string }>({
          method: "POST",
          path: `/channels/${channelId}/messages`,
          body: { content: args.content },
        });
        return { id: message.id, channel_id: message.channel_id };
      },
    }),
    platformTool({
      action: "list_channels",
      title: "List Discord channels",
      description: "Lists the channels of a server (GET /guilds/{guild_id}/channels).",
      input: z.object({ guild_id: z.string().regex(/^\d{5,25}$/) }),
      async run(client, args) {
        const channels = await client.request<{ id: string; name: string; type: number }[]>({ method: "GET", path: `/guilds/${args.guild_id}/channels` });
        return { channels: channels.map((c) => ({ id: c.id, name: c.name, type: c.type })) };
      },
    }),
  ],
});
