// Brevo's tools against the fake of its API v3 (mounted under /brevo/v3): the api-key header,
// transactional email and SMS, contacts created (or updated with update_enabled), updated and
// read by email or id, contact lists paged by an opaque offset cursor, contacts added to a list,
// and Brevo's {code, message} refusals (400 duplicate_parameter, 404 document_not_found, 402,
// 429, 401).
import { describe, expect, it } from "vitest";
import { PLATFORM_PACES } from "../../../src/connections/governor/defaults";
import { newScenario, scenarioUrl } from "../../tools/platform-helpers";
import { Hub, expectCall, failed, jsonOf, ok, requestsOf, respondWith } from "./platform-test-kit";

async function setup(key = "xkeysib-", extra: Record<string, unknown> = {}) {
  const hub = await Hub.create();
  const scenario = newScenario();
  const settings = { api_key: hub.secret(key), base_url: `${scenarioUrl(scenario)}/brevo/v3`, ...extra };
  await hub.connect("brevo", settings);
  return { hub, scenario, settings };
}

describe("Brevo", () => {
  it("sends a transactional email from the default sender and an SMS, with the api-key header", async () => {
    const { hub, scenario, settings } = await setup("xkeysib-", { default_sender_email: "news@acme.example", default_sender_name: "Acme" });
    const sent = await ok(hub, "brevo_send_transactional_email", {
      to: [{ email: "sarah@example.com", name: "Sarah" }],
      bcc: [{ email: "archive@acme.example" }],
      subject: "Your order",
      html_content: "<p>Thanks, {{ params.name }}</p>",
      params: { name: "Sarah" },
      tags: ["orders"],
    });
    expect(sent).toEqual({ message_id: "<202611201000.12345678901@smtp-relay.mailin.fr>" });
    const templated = await ok(hub, "brevo_send_transactional_email", {
      sender_email: "ops@acme.example",
      to: [{ email: "ada@example.com" }],
      template_id: 12,
    });
    expect(templated.message_id).toMatch(/^<.+@smtp-relay\.mailin\.fr>$/);
    const sms = await ok(hub, "brevo_send_sms", { sender: "Acme", recipient: "33680065433", content: "Your code is 123456", tag: "otp" });
    expect(sms).toEqual({ message_id: 1511882900176220 });

    const [email, template, text] = await requestsOf(scenario);
    expectCall(email!, "POST", "/brevo/v3/smtp/email");
    expect(email!.headers["api-key"]).toBe(settings.api_key);
    expect(email!.headers.accept).toBe("application/json");
    expect(jsonOf(email!)).toEqual({
      sender: { email: "news@acme.example", name: "Acme" },
      to: [{ email: "sarah@example.com", name: "Sarah" }],
      bcc: [{ email: "archive@acme.example" }],
      subject: "Your order",
      htmlContent: "<p>Thanks, {{ params.name }}</p>",
      params: { name: "Sarah" },
      tags: ["orders"],
    });
    // A sender named in the call does not take the default's name.
    expect(jsonOf(template!)).toEqual({ sender: { email: "ops@acme.example" }, to: [{ email: "ada@example.com" }], templateId: 12 });
    expectCall(text!, "POST", "/brevo/v3/transactionalSMS/send");
    expect(jsonOf(text!)).toEqual({ sender: "Acme", recipient: "33680065433", content: "Your code is 123456", type: "transactional", tag: "otp" });
  });

  it("creates, updates and reads a contact, pages the lists and adds contacts to one", async () => {
    const { hub, scenario } = await setup();
    const created = await ok(hub, "brevo_create_contact", {
      email: "grace@example.com",
      attributes: { FIRSTNAME: "Grace", LASTNAME: "Hopper" },
      list_ids: [5],
    });
    expect(created).toEqual({ id: 21, created: true });
    expect(await ok(hub, "brevo_create_contact", { email: "grace@example.com", attributes: { PLAN: "pro" }, update_enabled: true })).toEqual({
      id: null,
      created: false,
    });
    expect(await ok(hub, "brevo_update_contact", { identifier: "grace@example.com", attributes: { SMS: "+33680065433" }, unlink_list_ids: [5] })).toEqual({
      updated: true,
      identifier: "grace@example.com",
    });
    const read = await ok(hub, "brevo_get_contact", { identifier: "21", identifier_type: "contact_id" });
    expect(read).toEqual({
      id: 21,
      email: "grace@example.com",
      ext_id: null,
      attributes: { FIRSTNAME: "Grace", LASTNAME: "Hopper", PLAN: "pro", SMS: "+33680065433" },
      list_ids: [],
      email_blacklisted: false,
      sms_blacklisted: false,
      created_at: "2026-11-20T10:00:00.000+01:00",
      modified_at: "2026-11-20T10:05:00.000+01:00",
    });

    const page = await ok(hub, "brevo_list_lists", { limit: 2 });
    expect(page.lists).toEqual([
      { id: 7, name: "Webinar 2026", total_subscribers: 85, total_blacklisted: 1, unique_subscribers: 86, folder_id: 2 },
      { id: 5, name: "Customers", total_subscribers: 300, total_blacklisted: 0, unique_subscribers: 300, folder_id: 1 },
    ]);
    expect(page.next_cursor).toMatch(/^o1\./);
    const rest = await ok(hub, "brevo_list_lists", { limit: 2, cursor: page.next_cursor });
    expect(rest).toEqual({ lists: [expect.objectContaining({ id: 2, name: "Newsletter" })], next_cursor: null });

    const added = await ok(hub, "brevo_add_contacts_to_list", { list_id: 2, emails: ["grace@example.com", "nobody@example.com"] });
    expect(added).toEqual({ success: ["grace@example.com"], failure: ["nobody@example.com"] });

    const [create, upsert, update, get, first, second, add] = await requestsOf(scenario);
    expectCall(create!, "POST", "/brevo/v3/contacts");
    expect(jsonOf(create!)).toEqual({ email: "grace@example.com", attributes: { FIRSTNAME: "Grace", LASTNAME: "Hopper" }, listIds: [5], updateEnabled: false });
    expect(jsonOf(upsert!)).toEqual({ email: "grace@example.com", attributes: { PLAN: "pro" }, updateEnabled: true });
    expectCall(update!, "PUT", "/brevo/v3/contacts/grace%40example.com");
    expect(jsonOf(update!)).toEqual({ attributes: { SMS: "+33680065433" }, unlinkListIds: [5] });
    expectCall(get!, "GET", "/brevo/v3/contacts/21", { identifierType: "contact_id" });
    expectCall(first!, "GET", "/brevo/v3/contacts/lists", { limit: "2", offset: "0", sort: "desc" });
    expectCall(second!, "GET", "/brevo/v3/contacts/lists", { limit: "2", offset: "2", sort: "desc" });
    expectCall(add!, "POST", "/brevo/v3/contacts/lists/2/contacts/add");
    expect(jsonOf(add!)).toEqual({ emails: ["grace@example.com", "nobody@example.com"] });
  });

  it("reads Brevo's {code, message}: a duplicate (400), an unknown contact (404), no credits (402), a 429, a refused key (401)", async () => {
    const { hub, scenario } = await setup();
    await ok(hub, "brevo_create_contact", { email: "ada@example.com" });
    expect(await failed(hub, "brevo_create_contact", { email: "ada@example.com" })).toMatchObject({
      error_status: 400,
      retryable: false,
      error_message:
        "Brevo answered 400: Unable to create contact, email is already associated with another Contact. Pass update_enabled: true to update the existing contact instead.",
    });
    expect(await failed(hub, "brevo_get_contact", { identifier: "nobody@example.com" })).toMatchObject({
      error_status: 404,
      retryable: false,
      error_message: "Brevo answered 404: Contact does not exist",
    });
    expect(await failed(hub, "brevo_send_sms", { sender: "Acme", recipient: "15005550006", content: "Hi" })).toMatchObject({
      error_status: 402,
      retryable: false,
      error_message: "Brevo answered 402: Not enough credits. Buy SMS credits (or an email plan) in Brevo before sending.",
    });
    // Checked before anything is sent.
    expect(await failed(hub, "brevo_send_transactional_email", { to: [{ email: "ada@example.com" }], subject: "Hi", text_content: "Hi" })).toMatchObject({
      error_status: 400,
      error_message: "Name a sender in `sender_email`, or set default_sender_email on the connection.",
    });
    expect(await requestsOf(scenario)).toHaveLength(4);

    // Brevo's 429 says when its window resets in its own fields only, with no Retry-After.
    await respondWith(
      scenario,
      429,
      { code: "too_many_requests", message: "The expected rate limit is exceeded." },
      { "x-sib-ratelimit-limit": "10", "x-sib-ratelimit-remaining": "0", "x-sib-ratelimit-reset": "1" },
    );
    expect(await failed(hub, "brevo_list_lists", {})).toMatchObject({
      error_status: 429,
      retryable: true,
      retry_after_seconds: null,
      error_message: "Brevo answered 429: The expected rate limit is exceeded.",
    });

    const refused = await setup("wrong-");
    expect(await failed(refused.hub, "brevo_list_lists", {})).toMatchObject({
      error_status: 401,
      retryable: false,
      error_message: "Brevo answered 401: Key not found. Check the API key (SMTP & API → API keys), and that this address is allowed if IP security is on.",
    });
  });

  it("is paced at its documented contacts limit: its x-sib-ratelimit-* fields are not ones the governor reads", () => {
    expect(PLATFORM_PACES.brevo).toEqual({ limit: 10, windowMs: 1000 });
  });
});
