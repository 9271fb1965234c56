import { z } from "@hono/zod-openapi";
import { secondsField, text } from "./failures";
import { PlatformError, type PlatformFailure, baseUrlField, definePlatform, platformTool, secret } from "./types";

type TelegramConfig = { bot_token: string; default_chat_id?: string; base_url?: string };

/** Telegram puts the token in the path: https://api.telegram.org/bot<token>/<method>. */
const method = (name: string) => `/${name}`;

/**
 * Telegram's error reader: `{ok: false, error_code, description, parameters?: {retry_after, migrate_to_chat_id}}`
 * (core.telegram.org/bots/api#making-requests). Flood control says how long to wait; a group
 * that became a supergroup says its new chat id.
 */
function readTelegramError(status: number, body: any): PlatformFailure | undefined {
  if (!body || typeof body !== "object" || body.ok !== false) return undefined;
  const moved = typeof body.parameters?.migrate_to_chat_id === "number" ? ` (the chat is now ${body.parameters.migrate_to_chat_id}; use that chat_id)` : "";
  return {
    message: `${text(body.description, 400) ?? "unknown error"}${moved}`,
    code: typeof body.error_code === "number" ? String(body.error_code) : undefined,
    authFailure: status === 401 ? "error" : null,
    retryAfterSeconds: secondsField(body.parameters?.retry_after),
  };
}

export const telegram = definePlatform<TelegramConfig>({
  id: "telegram",
  name: "Telegram",
  description: "Send messages to Telegram chats and channels and read chat details, with a bot token from @BotFather.",
  category: "messaging",
  authKind: "bot_token",
  config: z.object({
    bot_token: secret("The token @BotFather gave your bot (123456:ABC-…)."),
    default_chat_id: z.string().max(100).optional().meta({ description: "Chat ID or @channelusername used when a call names none." }),
    base_url: baseUrlField,
  }),
  secretFields: ["bot_token"],
  defaultBaseUrl: "https://api.telegram.org",
  baseUrl: (config) => `${(config.base_url ?? "https://api.telegram.org").replace(/\/$/, "")}/bot${config.bot_token}`,
  readError: readTelegramError,
  async test(client) {
    const me = await client.request<{ result: { username: string } }>({ method: "GET", path: method("getMe") });
    return `Connected as @${me.result.username}.`;
  },
  tools: [
    platformTool({
      action: "send_message",
      effect: "write",
      title: "Send a Telegram message",
      description: "Sends a text message to a chat (sendMessage), with optional HTML or MarkdownV2 formatting.",
      input: z.object({
        chat_id: z.string().max(100).optional(),
        text: z.string().min(1).max(4096),
        parse_mode: z.enum(["HTML", "MarkdownV2"]).optional(),
        disable_notification: z.boolean().optional(),
      }),
      async run(client, args) {
        const chatId = args.chat_id ?? client.config.default_chat_id;
        if (!chatId) throw new PlatformError("Name a chat_id, or set default_chat_id on the connection.", 400);
        const sent = await client.request<{ result: { message_id: number; chat: { id: number } } }>({
          method: "POST",
          path: method("sendMessage"),
          body: { chat_id: chatId, text: args.text, parse_mode: args.parse_mode, disable_notification: args.disable_notification },
        });
        return { message_id: sent.result.message_id, chat_id: sent.result.chat.id };
      },
    }),
    platformTool({
      action: "get_chat",
      effect: "read",
      title: "Get a Telegram chat",
      description: "Reads a chat's id, type, title or username and description (getChat).",
      input: z.object({ chat_id: z.string().max(100) }),
      async run(client, args) {
        const chat = await client.request<{ result: Record<string, unknown> }>({ method: "GET", path: method("getChat"), query: { chat_id: args.chat_id } });
        return chat.result;
      },
    }),
  ],
});
