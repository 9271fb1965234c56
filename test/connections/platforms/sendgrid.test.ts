// SendGrid's tools against the fake of its v3 API: the mail/send body (personalizations, from,
// content), its 202 with an empty body, contacts upserted as a job, lists paged by page_token, and
// SendGrid's {errors: [{field, message}]} refusals.
import { describe, expect, it } from "vitest";
import { connected, expectCall, failed, jsonOf, ok, onlyRequestOf, requestsOf, respondWith } from "./platform-test-kit";

const setup = (extra: Record<string, unknown> = {}) => connected("sendgrid", (hub) => ({ api_key: hub.secret("SG."), ...extra }));

describe("SendGrid", () => {
  it("sends an email as personalizations, from and content with the key as a Bearer token; the 202 without a body is success", async () => {
    const { hub, scenario, settings } = await setup({ default_from: "hello@acme.example" });
    const out = await ok(hub, "sendgrid_send_email", {
      to: [{ email: "ada@example.com", name: "Ada" }],
      subject: "Welcome",
      text: "Hi Ada",
      html: "<p>Hi Ada</p>",
      categories: ["welcome"],
    });
    expect(out).toEqual({ accepted: true, recipients: 1 });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/v3/mail/send");
    expect(request.headers.authorization).toBe(`Bearer ${settings.api_key}`);
    expect(jsonOf(request)).toEqual({
      personalizations: [{ to: [{ email: "ada@example.com", name: "Ada" }] }],
      from: { email: "hello@acme.example" },
      subject: "Welcome",
      content: [
        { type: "text/plain", value: "Hi Ada" },
        { type: "text/html", value: "<p>Hi Ada</p>" },
      ],
      categories: ["welcome"],
    });
  });

  it("sends a dynamic template with its data, and SendGrid's 400 names the field it refused", async () => {
    const { hub, scenario } = await setup();
    await ok(hub, "sendgrid_send_email", {
      from: "hello@acme.example",
      to: [{ email: "ada@example.com" }],
      template_id: "d-0123456789abcdef0123456789abcdef",
      template_data: { first_name: "Ada", plan: "pro" },
    });
    expect(jsonOf(await onlyRequestOf(scenario))).toEqual({
      personalizations: [{ to: [{ email: "ada@example.com" }], dynamic_template_data: { first_name: "Ada", plan: "pro" } }],
      from: { email: "hello@acme.example" },
      template_id: "d-0123456789abcdef0123456789abcdef",
    });
    await respondWith(scenario, 400, {
      errors: [{ message: "The from email does not contain a valid address.", field: "from.email", help: "http://sendgrid.com/docs/x" }],
    });
    const refused = await failed(hub, "sendgrid_send_email", { from: "hello@acme.example", to: [{ email: "a@example.com" }], subject: "x", text: "y" });
    expect(refused).toMatchObject({
      error_status: 400,
      retryable: false,
      error_message: "SendGrid answered 400: from.email: The from email does not contain a valid address.",
    });
  });

  it("upserts contacts into a list as a job, pages lists by page_token, and finds contacts by email", async () => {
    const { hub, scenario } = await setup();
    const job = await ok(hub, "sendgrid_add_contacts", {
      list_ids: ["0c4c1a3d-1b1f-4e4e-9a51-0a1b2c3d4e51"],
      contacts: [{ email: "ada@example.com", first_name: "Ada", custom_fields: { e1_T: "webinar" } }],
    });
    expect(job).toEqual({ job_id: "2387e363-4104-4225-8960-4a5758492351" });
    const first = await ok(hub, "sendgrid_list_lists", { limit: 2 });
    expect(first).toEqual({
      lists: [
        { id: "0c4c1a3d-1b1f-4e4e-9a51-0a1b2c3d4e51", name: "Newsletter", contact_count: 1200 },
        { id: "0c4c1a3d-1b1f-4e4e-9a51-0a1b2c3d4e52", name: "Customers", contact_count: 300 },
      ],
      next_cursor: "p2",
    });
    const second = await ok(hub, "sendgrid_list_lists", { limit: 2, cursor: "p2" });
    expect(second).toEqual({ lists: [{ id: "0c4c1a3d-1b1f-4e4e-9a51-0a1b2c3d4e53", name: "Webinar", contact_count: 85 }], next_cursor: null });
    const found = await ok(hub, "sendgrid_find_contacts", { emails: ["ada@known.example", "nobody@example.com"] });
    expect(found).toEqual({
      contacts: [{ id: "c-ada", email: "ada@known.example", first_name: "Ada", last_name: null, list_ids: ["0c4c1a3d-1b1f-4e4e-9a51-0a1b2c3d4e51"] }],
      not_found: ["nobody@example.com"],
    });
    // None found is SendGrid's 404: an empty answer, not a failure.
    expect(await ok(hub, "sendgrid_find_contacts", { emails: ["nobody@example.com"] })).toEqual({ contacts: [], not_found: ["nobody@example.com"] });

    const requests = await requestsOf(scenario);
    expectCall(requests[0]!, "PUT", "/v3/marketing/contacts");
    expect(jsonOf(requests[0]!)).toEqual({
      list_ids: ["0c4c1a3d-1b1f-4e4e-9a51-0a1b2c3d4e51"],
      contacts: [{ email: "ada@example.com", first_name: "Ada", custom_fields: { e1_T: "webinar" } }],
    });
    expectCall(requests[1]!, "GET", "/v3/marketing/lists", { page_size: "2" });
    expectCall(requests[2]!, "GET", "/v3/marketing/lists", { page_size: "2", page_token: "p2" });
    expectCall(requests[3]!, "POST", "/v3/marketing/contacts/search/emails");
    expect(jsonOf(requests[3]!)).toEqual({ emails: ["ada@known.example", "nobody@example.com"] });
  });

  it("a 429 is retryable; without a sender anywhere the tool fails before calling SendGrid", async () => {
    const { hub, scenario } = await setup();
    expect(await failed(hub, "sendgrid_send_email", { to: [{ email: "a@example.com" }], subject: "x", text: "y" })).toMatchObject({
      error_message: "Name a sender in `from`, or set default_from on the connection.",
    });
    expect(await requestsOf(scenario)).toEqual([]);
    await respondWith(scenario, 429, { errors: [{ field: null, message: "too many requests" }] }, { "Retry-After": "1" });
    expect(await failed(hub, "sendgrid_list_lists", {})).toMatchObject({
      error_status: 429,
      retryable: true,
      error_message: "SendGrid answered 429: too many requests",
    });
  });
});
