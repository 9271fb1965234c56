import { z } from "@hono/zod-openapi";
import { OffsetCursor, nextOffsetCursor, offsetOf } from "./cursor";
import { requestTool } from "./request-tool";

// Mailchimp campaigns (mailchimp.com/developer/marketing/api/campaigns/): create a regular
// campaign for an audience, give it HTML, send it, and list campaigns newest first.

const CampaignId = z.string().regex(/^[0-9a-f]{10}$/, "A Mailchimp campaign id.");
const ListId = z.string().regex(/^[0-9a-f]{10}$/, "A Mailchimp audience id.");

const campaign = (c: any) => ({
  id: c.id,
  status: c.status,
  title: c.settings?.title ?? null,
  subject_line: c.settings?.subject_line ?? null,
  list_id: c.recipients?.list_id ?? null,
  emails_sent: c.emails_sent ?? 0,
  send_time: c.send_time || null,
  create_time: c.create_time ?? null,
});

export const mailchimpCampaignTools = [
  requestTool({
    action: "create_campaign",
    effect: "write",
    title: "Create a Mailchimp campaign",
    description: "Creates a regular email campaign for an audience (POST /campaigns); give it content with set_campaign_content, then send it.",
    input: z.object({
      list_id: ListId,
      subject_line: z.string().min(1).max(150),
      preview_text: z.string().max(150).optional(),
      title: z.string().max(100).optional(),
      from_name: z.string().min(1).max(100),
      reply_to: z.string().email().max(320),
    }),
    method: "POST",
    path: "/campaigns",
    body: (args) => ({
      type: "regular",
      recipients: { list_id: args.list_id },
      settings: { subject_line: args.subject_line, preview_text: args.preview_text, title: args.title, from_name: args.from_name, reply_to: args.reply_to },
    }),
    result: campaign,
  }),
  requestTool({
    action: "set_campaign_content",
    effect: "write",
    title: "Set a Mailchimp campaign's content",
    description: "Sets a draft campaign's HTML (and optional plain text) (PUT /campaigns/{id}/content).",
    input: z.object({ campaign_id: CampaignId, html: z.string().min(1).max(1_000_000), plain_text: z.string().max(1_000_000).optional() }),
    method: "PUT",
    path: "/campaigns/{campaign_id}/content",
    result: (c) => ({ html_length: typeof c.html === "string" ? c.html.length : 0 }),
  }),
  requestTool({
    action: "send_campaign",
    effect: "destructive",
    title: "Send a Mailchimp campaign",
    description: "Sends a draft campaign now (POST /campaigns/{id}/actions/send); Mailchimp refuses one that is not ready (its checklist explains why).",
    input: z.object({ campaign_id: CampaignId }),
    method: "POST",
    path: "/campaigns/{campaign_id}/actions/send",
    body: "none",
    result: (_answer, args) => ({ sent: true, campaign_id: args.campaign_id }),
  }),
  requestTool({
    action: "list_campaigns",
    effect: "read",
    title: "List Mailchimp campaigns",
    description: "Lists campaigns newest first (GET /campaigns), optionally by status (save, sending, sent, schedule); pass next_cursor for more.",
    input: z.object({
      status: z.enum(["save", "paused", "schedule", "sending", "sent"]).optional(),
      count: z.number().int().min(1).max(1000).default(50),
      cursor: OffsetCursor.optional(),
    }),
    method: "GET",
    path: "/campaigns",
    query: (args) => ({ count: args.count, offset: offsetOf(args.cursor) || undefined, status: args.status, sort_field: "create_time", sort_dir: "DESC" }),
    result: (a, args) => ({
      campaigns: (a.campaigns ?? []).map(campaign),
      next_cursor: nextOffsetCursor(offsetOf(args.cursor), a.campaigns?.length ?? 0, args.count, a.total_items),
    }),
  }),
];
