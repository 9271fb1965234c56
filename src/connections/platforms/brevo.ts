import { z } from "@hono/zod-openapi";
import { OffsetCursor, nextOffsetCursor, offsetOf } from "./cursor";
import { text } from "./failures";
import { requestTool } from "./request-tool";
import { PlatformError, type PlatformFailure, baseUrlField, definePlatform, platformTool, secret } from "./types";

type BrevoConfig = { api_key: string; default_sender_email?: string; default_sender_name?: string; base_url?: string };

// Brevo's API v3 (developers.brevo.com/reference): https://api.brevo.com/v3, the account's API key
// in the `api-key` header (developers.brevo.com/docs/getting-started), JSON in and out, and
// {code, message} refusals (developers.brevo.com/docs/how-it-works#error-codes).

const Email = z.string().email().max(320);
const Recipient = z.object({ email: Email, name: z.string().max(200).optional() });
const ListId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
/** A contact named by its email (the default), id, ext_id or phone (identifierType). */
const Identifier = z.string().min(1).max(320).describe("The contact's email, or its id, ext_id or SMS number with identifier_type.");
const IdentifierType = z
  .enum(["email_id", "contact_id", "ext_id", "phone_id"])
  .optional()
  .describe("What `identifier` is; Brevo reads an email or a numeric id without it.");
/** Contact attributes by their names in Brevo (FIRSTNAME, LASTNAME, SMS, your own). */
const Attributes = z
  .record(
    z
      .string()
      .regex(/^[A-Za-z0-9_]{1,100}$/)
      .describe("An attribute name as Brevo lists it: FIRSTNAME, LASTNAME, SMS."),
    z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()]),
  )
  .optional();

/**
 * Brevo's error body: {code, message} (`duplicate_parameter` for a second contact with one
 * email, `document_not_found`, `invalid_parameter`, `missing_parameter`, `not_enough_credits`,
 * `unauthorized` for a key it does not know, `permission_denied`). A 401 is the key's fault.
 */
function readBrevoError(status: number, body: any): PlatformFailure | undefined {
  if (status < 400 || !body || typeof body !== "object" || (typeof body.message !== "string" && typeof body.code !== "string")) return undefined;
  const code = text(body.code, 100);
  const hints: Record<string, string> = {
    duplicate_parameter: " Pass update_enabled: true to update the existing contact instead.",
    not_enough_credits: " Buy SMS credits (or an email plan) in Brevo before sending.",
  };
  const hint =
    (code && hints[code]) || (status === 401 ? " Check the API key (SMTP & API → API keys), and that this address is allowed if IP security is on." : "");
  const said = text(body.message, 400) ?? code ?? "";
  return {
    // Brevo's messages end without a stop; a hint after one reads as its own sentence.
    message: hint && said && !/[.!?]$/.test(said) ? `${said}.${hint}` : `${said}${hint}`,
    code,
    authFailure: status === 401 ? "error" : null,
  };
}

const contact = (c: any) => ({
  id: c.id,
  email: c.email ?? null,
  ext_id: c.ext_id ?? null,
  attributes: c.attributes ?? {},
  list_ids: c.listIds ?? [],
  email_blacklisted: c.emailBlacklisted ?? false,
  sms_blacklisted: c.smsBlacklisted ?? false,
  created_at: c.createdAt ?? null,
  modified_at: c.modifiedAt ?? null,
});

export const brevo = definePlatform<BrevoConfig>({
  id: "brevo",
  name: "Brevo",
  description:
    "Brevo (formerly Sendinblue): send transactional email (HTML, text or a template) and SMS, create, update and read contacts, list contact lists and add contacts to them.",
  category: "email",
  authKind: "api_key",
  config: z.object({
    api_key: secret("A Brevo API key (xkeysib-…) from SMTP & API → API keys."),
    default_sender_email: Email.optional().meta({ description: "A sender verified in Brevo, used when a call names none." }),
    default_sender_name: z.string().max(200).optional().meta({ description: "The name shown with the default sender." }),
    base_url: baseUrlField,
  }),
  secretFields: ["api_key"],
  defaultBaseUrl: "https://api.brevo.com/v3",
  authHeaders: (config) => ({ "api-key": config.api_key }),
  readError: readBrevoError,
  async test(client) {
    const account = await client.request<{ email: string; companyName?: string }>({ method: "GET", path: "/account" });
    return `Connected as ${account.email}${account.companyName ? ` (${account.companyName})` : ""}.`;
  },
  tools: [
    platformTool({
      action: "send_transactional_email",
      effect: "write",
      title: "Send a transactional email with Brevo",
      description:
        "Sends an email (POST /smtp/email): HTML and/or text content with a subject, or a template by id with its params. Answers Brevo's message id.",
      input: z.object({
        sender_email: Email.optional().describe("Default: the connection's default_sender_email."),
        sender_name: z.string().max(200).optional(),
        to: z.array(Recipient).min(1).max(99),
        cc: z.array(Recipient).max(99).optional(),
        bcc: z.array(Recipient).max(99).optional(),
        reply_to: Recipient.optional(),
        subject: z.string().max(998).optional(),
        html_content: z.string().max(1_000_000).optional(),
        text_content: z.string().max(1_000_000).optional(),
        template_id: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
        params: z.record(z.string().max(100), z.unknown()).optional().describe("Values for the template's {{ params.… }}."),
        tags: z.array(z.string().min(1).max(100)).max(10).optional(),
      }),
      async run(client, args) {
        const email = args.sender_email ?? client.config.default_sender_email;
        // A template brings its own sender; otherwise Brevo wants one.
        if (!email && !args.template_id) throw new PlatformError("Name a sender in `sender_email`, or set default_sender_email on the connection.", 400);
        if (!args.template_id && !args.html_content && !args.text_content) throw new PlatformError("Give html_content, text_content or a template_id.", 400);
        const name = args.sender_name ?? (args.sender_email ? undefined : client.config.default_sender_name);
        const sent = await client.request<{ messageId?: string; messageIds?: string[] }>({
          method: "POST",
          path: "/smtp/email",
          body: {
            ...(email ? { sender: { email, ...(name ? { name } : {}) } } : {}),
            to: args.to,
            cc: args.cc,
            bcc: args.bcc,
            replyTo: args.reply_to,
            subject: args.subject,
            htmlContent: args.html_content,
            textContent: args.text_content,
            templateId: args.template_id,
            params: args.params,
            tags: args.tags,
          },
        });
        return { message_id: sent?.messageId ?? sent?.messageIds?.[0] ?? null };
      },
    }),
    requestTool({
      action: "create_contact",
      effect: "write",
      title: "Create a Brevo contact",
      description:
        "Creates a contact (POST /contacts) with an email and/or ext_id, attributes (FIRSTNAME, LASTNAME, SMS…) and lists. An email already there is Brevo's 400 duplicate_parameter, unless update_enabled, which updates that contact (and answers no id).",
      input: z.object({
        email: Email.optional(),
        ext_id: z.string().min(1).max(255).optional().describe("Your own id for the contact."),
        attributes: Attributes,
        list_ids: z.array(ListId).max(50).optional(),
        email_blacklisted: z.boolean().optional(),
        sms_blacklisted: z.boolean().optional(),
        update_enabled: z.boolean().default(false),
      }),
      method: "POST",
      path: "/contacts",
      body: (args) => ({
        email: args.email,
        ext_id: args.ext_id,
        attributes: args.attributes,
        listIds: args.list_ids,
        emailBlacklisted: args.email_blacklisted,
        smsBlacklisted: args.sms_blacklisted,
        updateEnabled: args.update_enabled,
      }),
      // 201 {id} for a new contact; 204 (no body) when update_enabled updated an existing one.
      result: (a) => ({ id: a?.id ?? null, created: typeof a?.id === "number" }),
    }),
    requestTool({
      action: "update_contact",
      effect: "write",
      title: "Update a Brevo contact",
      description:
        "Changes a contact's attributes, lists (list_ids added, unlink_list_ids removed) and blocklisting (PUT /contacts/{identifier}); what is not given is kept.",
      input: z.object({
        identifier: Identifier,
        identifier_type: IdentifierType,
        attributes: Attributes,
        ext_id: z.string().min(1).max(255).optional(),
        list_ids: z.array(ListId).max(50).optional(),
        unlink_list_ids: z.array(ListId).max(50).optional(),
        email_blacklisted: z.boolean().optional(),
        sms_blacklisted: z.boolean().optional(),
      }),
      method: "PUT",
      path: "/contacts/{identifier}",
      query: (args) => ({ identifierType: args.identifier_type }),
      body: (args) => ({
        attributes: args.attributes,
        ext_id: args.ext_id,
        listIds: args.list_ids,
        unlinkListIds: args.unlink_list_ids,
        emailBlacklisted: args.email_blacklisted,
        smsBlacklisted: args.sms_blacklisted,
      }),
      result: (_a, args) => ({ updated: true, identifier: args.identifier }),
    }),
    requestTool({
      action: "get_contact",
      effect: "read",
      title: "Get a Brevo contact",
      description:
        "Reads a contact by email, id, ext_id or SMS number (GET /contacts/{identifier}): attributes, lists, blocklisting. An unknown one is Brevo's 404.",
      input: z.object({ identifier: Identifier, identifier_type: IdentifierType }),
      method: "GET",
      path: "/contacts/{identifier}",
      query: (args) => ({ identifierType: args.identifier_type }),
      result: contact,
    }),
    requestTool({
      action: "list_lists",
      effect: "read",
      title: "List Brevo contact lists",
      description: "The account's contact lists, newest first, with their subscriber counts (GET /contacts/lists); page with next_cursor.",
      input: z.object({ limit: z.number().int().min(1).max(50).default(10), cursor: OffsetCursor.optional() }),
      method: "GET",
      path: "/contacts/lists",
      // Brevo pages by offset (limit ≤ 50) and says the total in `count`; the tool hands out an opaque cursor.
      query: (args) => ({ limit: args.limit, offset: offsetOf(args.cursor), sort: "desc" }),
      result: (a, args) => {
        const lists = (a?.lists ?? []).map((l: any) => ({
          id: l.id,
          name: l.name,
          total_subscribers: l.totalSubscribers ?? null,
          total_blacklisted: l.totalBlacklisted ?? null,
          unique_subscribers: l.uniqueSubscribers ?? null,
          folder_id: l.folderId ?? null,
        }));
        return { lists, next_cursor: nextOffsetCursor(offsetOf(args.cursor), lists.length, args.limit, a?.count) };
      },
    }),
    requestTool({
      action: "add_contacts_to_list",
      effect: "write",
      title: "Add Brevo contacts to a list",
      description:
        "Adds existing contacts to a list by email (POST /contacts/lists/{list_id}/contacts/add), 150 at most a call; answers which were added and which were not.",
      input: z.object({ list_id: ListId, emails: z.array(Email).min(1).max(150) }),
      method: "POST",
      path: "/contacts/lists/{list_id}/contacts/add",
      body: (args) => ({ emails: args.emails }),
      result: (a) => ({ success: a?.contacts?.success ?? [], failure: a?.contacts?.failure ?? [] }),
    }),
    requestTool({
      action: "send_sms",
      effect: "write",
      title: "Send an SMS with Brevo",
      description:
        "Sends a transactional or marketing SMS (POST /transactionalSMS/send, which replaced /transactionalSMS/sms) from a sender name of up to 11 letters and digits (or 15 digits), spending SMS credits.",
      input: z.object({
        sender: z.string().regex(/^(?:[A-Za-z0-9]{1,11}|\d{12,15})$/, "Up to 11 letters and digits, or 12 to 15 digits."),
        recipient: z.string().regex(/^\+?\d{6,15}$/, "The mobile number with its country code: 33680065433."),
        content: z.string().min(1).max(1600).describe("Over 160 characters it goes as several messages."),
        type: z.enum(["transactional", "marketing"]).default("transactional"),
        tag: z.string().min(1).max(100).optional(),
        unicode_enabled: z.boolean().optional(),
        organisation_prefix: z.string().max(50).optional().describe("Your brand, prefixed to the message (US carriers want it)."),
      }),
      method: "POST",
      path: "/transactionalSMS/send",
      body: (args) => ({
        sender: args.sender,
        recipient: args.recipient,
        content: args.content,
        type: args.type,
        tag: args.tag,
        unicodeEnabled: args.unicode_enabled,
        organisationPrefix: args.organisation_prefix,
      }),
      result: (a) => ({ message_id: a?.messageId ?? null }),
    }),
  ],
});
