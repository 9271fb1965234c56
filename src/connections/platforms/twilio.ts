import { z } from "@hono/zod-openapi";
import { text } from "./failures";
import { requestTool } from "./request-tool";
import { PlatformError, type PlatformFailure, baseUrlField, definePlatform, platformTool, secret } from "./types";

type TwilioConfig = { account_sid: string; auth_token: string; default_from?: string; base_url?: string };

const Phone = z.string().regex(/^\+[1-9]\d{6,14}$/, "A phone number in E.164 form, e.g. +14155552671.");
const MessageSid = z.string().regex(/^(SM|MM)[0-9a-f]{32}$/, "A message SID (SM… or MM…).");
const MESSAGES = "/2010-04-01/Accounts/{account_sid}/Messages.json";

/** Twilio's codes that will pass if tried again (twilio.com/docs/api/errors): 20429 too many requests, 20500 its fault. */
const TRANSIENT = new Set([20429, 20500, 20503]);

/**
 * Twilio's error reader: `{code, message, more_info, status}`. The code is Twilio's own (21211:
 * invalid To number, 21608: unverified number on a trial account, 20003: authentication failed).
 */
function readTwilioError(status: number, body: any): PlatformFailure | undefined {
  if (status < 400 || !body || typeof body !== "object" || typeof body.message !== "string") return undefined;
  const code = typeof body.code === "number" ? body.code : undefined;
  return {
    message: `${text(body.message, 400)}${code ? ` (error ${code})` : ""}`,
    code: code === undefined ? undefined : String(code),
    authFailure: status === 401 || code === 20003 ? "error" : null,
    retryable: code !== undefined && TRANSIENT.has(code) ? true : undefined,
  };
}

const message = (m: any) => ({
  sid: m.sid,
  status: m.status,
  to: m.to,
  from: m.from,
  body: m.body,
  direction: m.direction ?? null,
  num_segments: m.num_segments === undefined ? null : Number(m.num_segments),
  error_code: m.error_code ?? null,
  date_created: m.date_created ?? null,
});

/** Sends one message; WhatsApp numbers are the same with the `whatsapp:` prefix on both ends. */
function sendTool(action: string, channel: "sms" | "whatsapp") {
  const prefix = channel === "whatsapp" ? "whatsapp:" : "";
  return platformTool<TwilioConfig, any>({
    action,
    // One message to one number.
    effect: "write",
    title: channel === "sms" ? "Send an SMS with Twilio" : "Send a WhatsApp message with Twilio",
    description:
      channel === "sms"
        ? "Sends an SMS (or MMS with media_url) from a Twilio number or Messaging Service (POST /2010-04-01/Accounts/{sid}/Messages.json, form-encoded)."
        : "Sends a WhatsApp message from a WhatsApp-enabled Twilio sender; outside the 24-hour session window WhatsApp only takes approved templates (content_sid).",
    input: z.object({
      to: Phone,
      from: Phone.optional().describe("A Twilio number; default: the connection's default_from."),
      messaging_service_sid: z
        .string()
        .regex(/^MG[0-9a-f]{32}$/)
        .optional(),
      body: z.string().min(1).max(1600).optional(),
      media_url: z.string().url().max(2000).optional().describe("A public image or file to attach (MMS, WhatsApp media)."),
      content_sid: z
        .string()
        .regex(/^HX[0-9a-f]{32}$/)
        .optional()
        .describe("An approved content template."),
      content_variables: z.record(z.string().max(10), z.string().max(1000)).optional(),
      status_callback: z.string().url().max(2000).optional(),
    }),
    async run(client, args) {
      const from = args.from ?? client.config.default_from;
      if (!from && !args.messaging_service_sid) throw new PlatformError("Give `from` or `messaging_service_sid`, or set default_from on the connection.", 400);
      if (!args.body && !args.media_url && !args.content_sid) throw new PlatformError("Give a body, media_url or a content_sid.", 400);
      const sent = await client.request({
        method: "POST",
        path: `/2010-04-01/Accounts/${encodeURIComponent(client.config.account_sid)}/Messages.json`,
        encoding: "form",
        body: {
          To: `${prefix}${args.to}`,
          From: from && !args.messaging_service_sid ? `${prefix}${from}` : undefined,
          MessagingServiceSid: args.messaging_service_sid,
          Body: args.body,
          ContentSid: args.content_sid,
          ContentVariables: args.content_variables ? JSON.stringify(args.content_variables) : undefined,
          StatusCallback: args.status_callback,
          MediaUrl: args.media_url,
        },
      });
      return message(sent);
    },
  });
}

export const twilio = definePlatform<TwilioConfig>({
  id: "twilio",
  name: "Twilio (SMS and WhatsApp)",
  description: "Send SMS, MMS and WhatsApp messages with Twilio, and read the messages an account sent and received.",
  category: "messaging",
  authKind: "basic",
  config: z.object({
    account_sid: z
      .string()
      .regex(/^AC[0-9a-f]{32}$/)
      .meta({ description: "The Account SID (AC…), from the Twilio Console." }),
    auth_token: secret("The account's Auth Token, from the Twilio Console."),
    default_from: Phone.optional().meta({ description: "The Twilio number messages come from when a call names none." }),
    base_url: baseUrlField,
  }),
  secretFields: ["auth_token"],
  defaultBaseUrl: "https://api.twilio.com",
  // HTTP Basic with the Account SID as the user and the Auth Token as the password.
  authHeaders: (config) => ({ Authorization: `Basic ${btoa(`${config.account_sid}:${config.auth_token}`)}` }),
  readError: readTwilioError,
  async test(client) {
    const account = await client.request<{ friendly_name: string; status: string }>({
      method: "GET",
      path: `/2010-04-01/Accounts/${encodeURIComponent(client.config.account_sid)}.json`,
    });
    return `Connected to ${account.friendly_name} (${account.status}).`;
  },
  polls: [{ title: "New incoming message", action: "list_messages", arguments: { limit: 20 }, items_path: "messages", id_path: "sid" }],
  tools: [
    sendTool("send_sms", "sms"),
    sendTool("send_whatsapp", "whatsapp"),
    requestTool({
      action: "get_message",
      effect: "read",
      title: "Get a Twilio message",
      description: "Reads a message and its delivery status (GET /2010-04-01/Accounts/{sid}/Messages/{MessageSid}.json).",
      input: z.object({ message_sid: MessageSid }),
      method: "GET",
      path: "/2010-04-01/Accounts/{account_sid}/Messages/{message_sid}.json",
      query: [],
      result: message,
    }),
    requestTool({
      action: "list_messages",
      effect: "read",
      title: "List Twilio messages",
      description:
        "Lists messages newest first (GET /2010-04-01/Accounts/{sid}/Messages.json), optionally to or from a number: with `to` set to your number it lists incoming texts, a 'new SMS' poll trigger (items_path: messages, id_path: sid).",
      input: z.object({
        to: z.string().max(50).optional(),
        from: z.string().max(50).optional(),
        limit: z.number().int().min(1).max(1000).default(50),
        cursor: z
          .string()
          .regex(/^\d{1,6}:[A-Za-z0-9_-]{1,200}$/)
          .optional()
          .describe("The previous page's next_cursor."),
      }),
      method: "GET",
      path: MESSAGES,
      query: (args) => {
        const [page, token] = args.cursor?.split(":") ?? [];
        return { To: args.to, From: args.from, PageSize: args.limit, Page: page, PageToken: token };
      },
      result: (a) => {
        // Twilio links the next page as a URI with Page and PageToken; the cursor keeps the two.
        const next = a.next_page_uri ? new URL(a.next_page_uri, "https://api.twilio.com").searchParams : undefined;
        return {
          messages: (a.messages ?? []).map(message),
          next_cursor: next?.get("Page") && next.get("PageToken") ? `${next.get("Page")}:${next.get("PageToken")}` : null,
        };
      },
    }),
  ],
});
