import { z } from "@hono/zod-openapi";
import { OffsetCursor, nextOffsetCursor, offsetOf } from "./cursor";
import { text } from "./failures";
import { mailchimpCampaignTools } from "./mailchimp-campaigns";
import { PlatformError, type PlatformFailure, baseUrlField, definePlatform, platformTool, secret } from "./types";

type MailchimpConfig = { api_key: string; base_url?: string };

/** The data center is the key's suffix: "…-us21" lives at us21.api.mailchimp.com. */
function dataCenterUrl(config: MailchimpConfig): string {
  if (config.base_url) return config.base_url;
  const dc = config.api_key.split("-").pop();
  if (!dc || !/^[a-z]+\d+$/.test(dc)) throw new PlatformError("A Mailchimp API key ends in its data center, like -us21.", 400);
  return `https://${dc}.api.mailchimp.com/3.0`;
}

async function subscriberHash(email: string): Promise<string> {
  // Mailchimp addresses members by the MD5 of the lower-cased email; WebCrypto has no MD5 in
  // browsers, but workerd's does.
  const digest = await crypto.subtle.digest("MD5", new TextEncoder().encode(email.toLowerCase()));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Mailchimp's error reader: problem details `{type, title, status, detail, instance, errors?: [{field, message}]}`
 * (mailchimp.com/developer/marketing/docs/errors). "Member Exists: ada@example.com is already a
 * list member…", and for invalid merge fields each field's complaint.
 */
function readMailchimpError(status: number, body: any): PlatformFailure | undefined {
  if (status < 400 || !body || typeof body !== "object" || (body.title === undefined && body.detail === undefined)) return undefined;
  const title = text(body.title, 100);
  const fields = Array.isArray(body.errors)
    ? body.errors
        .slice(0, 5)
        .map((e: any) => [text(e?.field, 100), text(e?.message, 200)].filter(Boolean).join(": "))
        .filter(Boolean)
    : [];
  const message = [[title, text(body.detail, 400)].filter(Boolean).join(": "), ...fields].filter(Boolean).join("; ");
  return { message, code: title, authFailure: status === 401 ? "error" : null };
}

export const mailchimp = definePlatform<MailchimpConfig>({
  id: "mailchimp",
  name: "Mailchimp",
  description: "Add or update subscribers in Mailchimp audiences, tag them, list audiences, and create and send campaigns.",
  category: "marketing",
  authKind: "basic",
  config: z.object({ api_key: secret("A Mailchimp API key, ending in its data center (…-us21)."), base_url: baseUrlField }),
  secretFields: ["api_key"],
  baseUrl: dataCenterUrl,
  authHeaders: (config) => ({ Authorization: `Basic ${btoa(`hub:${config.api_key}`)}` }),
  readError: readMailchimpError,
  async test(client) {
    const ping = await client.request<{ health_status: string }>({ method: "GET", path: "/ping" });
    return `Connected: ${ping.health_status}`;
  },
  tools: [
    platformTool({
      action: "upsert_member",
      effect: "write",
      title: "Add or update a Mailchimp subscriber",
      description:
        "Adds a contact to an audience or updates its merge fields (PUT /lists/{list_id}/members/{subscriber_hash}); `status` applies to new contacts, so an unsubscribed contact is never re-subscribed. Tags are added with POST …/members/{subscriber_hash}/tags.",
      input: z.object({
        list_id: z.string().regex(/^[a-z0-9]{4,20}$/),
        email: z.string().email(),
        status: z.enum(["subscribed", "pending", "unsubscribed", "transactional"]).default("subscribed"),
        merge_fields: z
          .record(z.string(), z.union([z.string(), z.number()]))
          .optional()
          .describe('E.g. {FNAME: "Ada"}.'),
        tags: z.array(z.string().max(100)).max(50).optional(),
      }),
      async run(client, args) {
        const hash = await subscriberHash(args.email);
        const member = await client.request<{ id: string; status: string; email_address: string }>({
          method: "PUT",
          path: `/lists/${args.list_id}/members/${hash}`,
          body: { email_address: args.email, status_if_new: args.status, merge_fields: args.merge_fields },
        });
        // Mailchimp ignores tags in the PUT for existing members; its tags endpoint applies them to all.
        if (args.tags?.length) {
          await client.request({
            method: "POST",
            path: `/lists/${args.list_id}/members/${hash}/tags`,
            body: { tags: args.tags.map((name) => ({ name, status: "active" })) },
          });
        }
        return { id: member.id, email: member.email_address, status: member.status, tags_added: args.tags ?? [] };
      },
    }),
    platformTool({
      action: "list_audiences",
      effect: "read",
      title: "List Mailchimp audiences",
      description:
        "Lists audiences with their member counts a page at a time (GET /lists); pass the answer's `next_cursor` as `cursor` for the next page (null: no more).",
      input: z.object({ count: z.number().int().min(1).max(1000).default(100), cursor: OffsetCursor.optional() }),
      async run(client, args) {
        const offset = offsetOf(args.cursor);
        const lists = await client.request<{ lists: { id: string; name: string; stats: { member_count: number } }[]; total_items?: number }>({
          method: "GET",
          path: "/lists",
          query: { count: args.count, offset: offset || undefined, fields: "lists.id,lists.name,lists.stats.member_count,total_items" },
        });
        return {
          audiences: lists.lists.map((l) => ({ id: l.id, name: l.name, member_count: l.stats?.member_count ?? null })),
          next_cursor: nextOffsetCursor(offset, lists.lists.length, args.count, lists.total_items),
        };
      },
    }),
    ...mailchimpCampaignTools,
  ],
});
