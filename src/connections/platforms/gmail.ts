import { z } from "@hono/zod-openapi";
import { googleOAuth, readGoogleError } from "./google-api";
import { oauthConfigFields } from "./oauth-spec";
import { requestTool } from "./request-tool";
import { PlatformError, baseUrlField, definePlatform, platformTool } from "./types";

type GmailConfig = { base_url?: string /** Set for each call from the connection's OAuth tokens. */; access_token?: string };

const Addresses = z.array(z.string().email().max(320)).max(100);
const MessageId = z.string().regex(/^[0-9a-zA-Z]{1,64}$/, "A Gmail message id.");

/** An RFC 2047 encoded-word where a header holds more than ASCII (a subject with "é" or an emoji). */
function headerText(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value)) return value;
  return `=?UTF-8?B?${base64(new TextEncoder().encode(value))}?=`;
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

const base64url = (text: string) => base64(new TextEncoder().encode(text)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");

/**
 * The RFC 5322 message Gmail's send takes as `raw` (base64url). Header values cannot carry line
 * breaks (the schema refuses them), so nobody can add headers through a subject or an address.
 */
export function mimeMessage(args: {
  to: string[];
  cc?: string[];
  bcc?: string[];
  subject: string;
  text?: string;
  html?: string;
  in_reply_to?: string;
}): string {
  const headers = [
    `To: ${args.to.join(", ")}`,
    args.cc?.length ? `Cc: ${args.cc.join(", ")}` : undefined,
    args.bcc?.length ? `Bcc: ${args.bcc.join(", ")}` : undefined,
    `Subject: ${headerText(args.subject)}`,
    args.in_reply_to ? `In-Reply-To: ${args.in_reply_to}` : undefined,
    args.in_reply_to ? `References: ${args.in_reply_to}` : undefined,
    "MIME-Version: 1.0",
    `Content-Type: ${args.html ? "text/html" : "text/plain"}; charset="UTF-8"`,
    "Content-Transfer-Encoding: base64",
  ].filter(Boolean);
  const body = base64(new TextEncoder().encode(args.html ?? args.text ?? ""));
  return `${headers.join("\r\n")}\r\n\r\n${body.replace(/.{76}/g, "$&\r\n")}`;
}

const OneLine = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[^\r\n]*$/, "One line, without line breaks.");

/** A message's headers by name, as Gmail's metadata format gives them: [{name, value}]. */
function header(message: any, name: string): string | null {
  const found = (message.payload?.headers ?? []).find((h: any) => String(h.name).toLowerCase() === name.toLowerCase());
  return found?.value ?? null;
}

export const gmail = definePlatform<GmailConfig>({
  id: "gmail",
  name: "Gmail",
  description: "Send email from a Gmail or Google Workspace mailbox, search it, read messages and label them (Connect with Google).",
  category: "email",
  authKind: "oauth2",
  config: z.object({ base_url: baseUrlField, ...oauthConfigFields }),
  secretFields: ["client_secret"],
  // gmail.modify reads, sends and labels (not delete forever); developers.google.com/gmail/api/auth/scopes.
  oauth: googleOAuth(["https://www.googleapis.com/auth/gmail.modify"]),
  defaultBaseUrl: "https://gmail.googleapis.com",
  authHeaders: (config) => ({ Authorization: `Bearer ${config.access_token}` }),
  readError: readGoogleError,
  async test(client) {
    const me = await client.request<{ emailAddress: string; messagesTotal: number }>({ method: "GET", path: "/gmail/v1/users/me/profile" });
    return `Connected to ${me.emailAddress} (${me.messagesTotal} messages).`;
  },
  polls: [{ title: "New email", action: "list_messages", arguments: { query: "in:inbox", limit: 20 }, items_path: "messages", id_path: "id" }],
  tools: [
    platformTool({
      action: "send_email",
      effect: "write",
      title: "Send an email from Gmail",
      description:
        "Sends an email from the connected mailbox (POST /gmail/v1/users/me/messages/send), plain text or HTML; `thread_id` and `in_reply_to` make it a reply.",
      input: z.object({
        to: Addresses.min(1),
        cc: Addresses.optional(),
        bcc: Addresses.optional(),
        subject: OneLine(998),
        text: z.string().max(500_000).optional(),
        html: z.string().max(500_000).optional(),
        thread_id: z
          .string()
          .regex(/^[0-9a-zA-Z]{1,64}$/)
          .optional(),
        in_reply_to: OneLine(998).optional().describe("The Message-ID header of the email this answers."),
      }),
      async run(client, args) {
        if (args.text === undefined && args.html === undefined) throw new PlatformError("Give the email a text or an html body.", 400);
        const raw = base64url(mimeMessage(args));
        const sent = await client.request<{ id: string; threadId: string; labelIds?: string[] }>({
          method: "POST",
          path: "/gmail/v1/users/me/messages/send",
          body: { raw, ...(args.thread_id ? { threadId: args.thread_id } : {}) },
        });
        return { id: sent.id, thread_id: sent.threadId, label_ids: sent.labelIds ?? [] };
      },
    }),
    requestTool({
      action: "list_messages",
      effect: "read",
      title: "Search Gmail messages",
      description:
        "Lists the mailbox's messages newest first (GET /gmail/v1/users/me/messages), optionally matching a Gmail search (`from:billing@… is:unread`). Ids are stable, so it drives a 'new email' poll trigger (items_path: messages, id_path: id).",
      input: z.object({
        query: z.string().max(1000).optional().describe("Gmail search, as in the search box."),
        label_id: z.string().max(100).optional().describe("Only messages with this label (INBOX, UNREAD, or a label's id)."),
        limit: z.number().int().min(1).max(500).default(20),
        cursor: z.string().max(200).optional().describe("The previous page's next_cursor."),
      }),
      method: "GET",
      path: "/gmail/v1/users/me/messages",
      query: (args) => ({ q: args.query, labelIds: args.label_id, maxResults: args.limit, pageToken: args.cursor }),
      result: (page) => ({
        messages: (page.messages ?? []).map((m: any) => ({ id: m.id, thread_id: m.threadId })),
        next_cursor: page.nextPageToken ?? null,
      }),
    }),
    requestTool({
      action: "get_message",
      effect: "read",
      title: "Read a Gmail message",
      description: "Reads a message's sender, recipients, subject, date, snippet and labels (GET /gmail/v1/users/me/messages/{id}, metadata format).",
      input: z.object({ message_id: MessageId }),
      method: "GET",
      path: "/gmail/v1/users/me/messages/{message_id}",
      query: () => ({ format: "metadata" }),
      result: (m) => ({
        id: m.id,
        thread_id: m.threadId,
        label_ids: m.labelIds ?? [],
        snippet: m.snippet ?? "",
        from: header(m, "From"),
        to: header(m, "To"),
        subject: header(m, "Subject"),
        date: header(m, "Date"),
        received_at: m.internalDate ? new Date(Number(m.internalDate)).toISOString() : null,
      }),
    }),
    requestTool({
      action: "modify_labels",
      effect: "write",
      title: "Label a Gmail message",
      description:
        "Adds and removes labels on a message (POST /gmail/v1/users/me/messages/{id}/modify): remove UNREAD to mark it read, add STARRED to star it.",
      input: z
        .object({
          message_id: MessageId,
          add_label_ids: z.array(z.string().max(100)).max(100).optional(),
          remove_label_ids: z.array(z.string().max(100)).max(100).optional(),
        })
        .refine((args) => Boolean(args.add_label_ids?.length || args.remove_label_ids?.length), "Give labels to add or to remove."),
      method: "POST",
      path: "/gmail/v1/users/me/messages/{message_id}/modify",
      body: (args) => ({ addLabelIds: args.add_label_ids ?? [], removeLabelIds: args.remove_label_ids ?? [] }),
      result: (m) => ({ id: m.id, label_ids: m.labelIds ?? [] }),
    }),
  ],
});
