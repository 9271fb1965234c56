import type { ServiceContext } from "../../core/context";
import type { Approval } from "../../db/schema";
import type { PlatformClient, PlatformRequest } from "../../connections/platforms/types";
import { type ApprovalAbout, argumentsText } from "./describe";
import { ChannelFailure, channelConnection } from "./connection";

/** The platforms an email channel may send through (DESIGN §6.2). */
export const EMAIL_PLATFORMS = ["resend", "sendgrid", "postmark", "mailgun", "brevo"] as const;
type EmailPlatform = (typeof EMAIL_PLATFORMS)[number];

export const isEmailPlatform = (id: string): id is EmailPlatform => (EMAIL_PLATFORMS as readonly string[]).includes(id);

const MAX_ARGUMENT_CHARS = 4000;

/**
 * The sender of an email channel: its own `from`, else the connection's default sender
 * (Resend's and SendGrid's default_from, Brevo's default_sender_email, a Mailgun domain's
 * approvals@ address). Postmark has no default: the channel names one. Reads only plain
 * (non-secret) fields, so it works on a stored config too.
 */
export function senderOf(platform: string, from: string | undefined, config: Record<string, unknown>): string | undefined {
  if (from) return from;
  const text = (field: string) => (typeof config[field] === "string" && config[field] ? (config[field] as string) : undefined);
  if (platform === "resend" || platform === "sendgrid") return text("default_from");
  if (platform === "brevo") return text("default_sender_email");
  if (platform === "mailgun") return text("domain") && `Agent Automation Hub <approvals@${text("domain")}>`;
  return undefined;
}

/** One message to one address, in plain text and HTML. */
export interface ChannelEmail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** The message: which agent wants to run which tool with which arguments, and the link to decide. */
export function approvalEmail(approval: Approval, about: ApprovalAbout, to: string, link: string): ChannelEmail {
  const args = argumentsText(approval.arguments, MAX_ARGUMENT_CHARS);
  const expires = `${approval.expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const subject = `Approval needed: ${about.agent} wants to run ${approval.tool}`.slice(0, 250);
  const text = [
    `${about.agent} wants to run ${approval.tool} (${approval.effect}) with these arguments:`,
    "",
    args,
    "",
    `Approve or deny it on this page (the link is yours alone, and works until the call is decided or expires at ${expires}):`,
    link,
    "",
    `Approval ${approval.id}. Nothing runs without a decision; if nobody decides, the request expires and the call is not run.`,
  ].join("\n");
  const html = [
    `<p>${escapeHtml(about.agent)} wants to run <code>${escapeHtml(approval.tool)}</code> (${escapeHtml(approval.effect)}) with these arguments:</p>`,
    `<pre style="background:#f3f4f6;padding:8px;border-radius:6px;white-space:pre-wrap">${escapeHtml(args)}</pre>`,
    `<p><a href="${escapeHtml(link)}">Approve or deny it</a> (the link is yours alone, and works until the call is decided or expires at ${expires}).</p>`,
    `<p style="color:#374151;font-size:14px">Approval ${escapeHtml(approval.id)}. Nothing runs without a decision; if nobody decides, the request expires and the call is not run.</p>`,
  ].join("\n");
  return { to, subject, text, html };
}

/** Sends the message through the email connection, in the platform's own request shape. */
export async function sendChannelEmail(ctx: ServiceContext, channel: { connection_id: number; from?: string }, email: ChannelEmail): Promise<void> {
  const { platform, client } = await channelConnection(ctx, channel.connection_id, EMAIL_PLATFORMS);
  const from = senderOf(platform.id, channel.from, client.config);
  if (!from) throw new ChannelFailure(`connection ${channel.connection_id} has no default sender; name one in the channel's "from"`);
  await client.request(sendRequest(platform.id as EmailPlatform, client, from, email));
}

function sendRequest(platform: EmailPlatform, client: PlatformClient<Record<string, any>>, from: string, email: ChannelEmail): PlatformRequest {
  const sender = senderParts(from);
  switch (platform) {
    case "resend":
      return { method: "POST", path: "/emails", body: { from, to: [email.to], subject: email.subject, text: email.text, html: email.html } };
    case "sendgrid":
      return {
        method: "POST",
        path: "/v3/mail/send",
        body: {
          personalizations: [{ to: [{ email: email.to }] }],
          from: sender,
          subject: email.subject,
          content: [
            { type: "text/plain", value: email.text },
            { type: "text/html", value: email.html },
          ],
        },
      };
    case "postmark":
      return {
        method: "POST",
        path: "/email",
        body: { From: from, To: email.to, Subject: email.subject, TextBody: email.text, HtmlBody: email.html, MessageStream: "outbound" },
      };
    case "mailgun":
      return {
        method: "POST",
        path: `/v3/${encodeURIComponent(String(client.config.domain))}/messages`,
        encoding: "form",
        body: { from, to: email.to, subject: email.subject, text: email.text, html: email.html },
      };
    case "brevo": {
      const name = sender.name ?? (from === client.config.default_sender_email ? client.config.default_sender_name : undefined);
      return {
        method: "POST",
        path: "/smtp/email",
        body: {
          sender: { email: sender.email, ...(name ? { name } : {}) },
          to: [{ email: email.to }],
          subject: email.subject,
          textContent: email.text,
          htmlContent: email.html,
        },
      };
    }
  }
}

/** "Name <address>" or a bare address, as the APIs that want them apart (SendGrid, Brevo) take it. */
function senderParts(from: string): { email: string; name?: string } {
  const text = from.trim();
  const open = text.lastIndexOf("<");
  if (open < 0 || !text.endsWith(">")) return { email: text };
  const email = text.slice(open + 1, -1).trim();
  const name = text
    .slice(0, open)
    .trim()
    .replace(/^"(.*)"$/, "$1")
    .trim();
  return name ? { email, name } : { email };
}

export function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}
