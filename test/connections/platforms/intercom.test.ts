// Intercom's tools against the fake of its REST API (mounted under /intercom): the bearer token and
// the pinned Intercom-Version, contacts created, updated and found by email, an admin's message to
// a contact, and Intercom's error.list refusals (409 duplicate, 404, 400, 401).
import { describe, expect, it } from "vitest";
import { newScenario, scenarioUrl } from "../../tools/platform-helpers";
import { Hub, expectCall, failed, jsonOf, ok, requestsOf } from "./platform-test-kit";

async function setup(token = "ic-", extra: Record<string, unknown> = {}) {
  const hub = await Hub.create();
  const scenario = newScenario();
  const settings = { access_token: hub.secret(token), base_url: `${scenarioUrl(scenario)}/intercom`, ...extra };
  await hub.connect("intercom", settings);
  return { hub, scenario, settings };
}

describe("Intercom", () => {
  it("creates a user, updates its attributes and finds it by email, with the token and Intercom-Version", async () => {
    const { hub, scenario, settings } = await setup();
    const created = await ok(hub, "intercom_create_contact", {
      email: "grace@example.com",
      name: "Grace Hopper",
      external_id: "user_42",
      custom_attributes: { plan: "pro" },
    });
    expect(created).toMatchObject({
      role: "user",
      email: "grace@example.com",
      name: "Grace Hopper",
      phone: null,
      external_id: "user_42",
      custom_attributes: { plan: "pro" },
    });
    expect(created.id).toMatch(/^[0-9a-f]{24}$/);
    const updated = await ok(hub, "intercom_update_contact", { contact_id: created.id, phone: "+14155550100", custom_attributes: { seats: 5 } });
    expect(updated).toMatchObject({ id: created.id, phone: "+14155550100", custom_attributes: { plan: "pro", seats: 5 } });
    const found = await ok(hub, "intercom_find_contacts", { email: "grace@example.com" });
    expect(found).toMatchObject({ total: 1, contacts: [{ id: created.id, email: "grace@example.com" }], next_cursor: null });

    const [create, update, search] = await requestsOf(scenario);
    expectCall(create!, "POST", "/intercom/contacts");
    expect(create!.headers.authorization).toBe(`Bearer ${settings.access_token}`);
    expect(create!.headers["intercom-version"]).toBe("2.11");
    expect(jsonOf(create!)).toEqual({
      role: "user",
      email: "grace@example.com",
      name: "Grace Hopper",
      external_id: "user_42",
      custom_attributes: { plan: "pro" },
    });
    expectCall(update!, "PUT", `/intercom/contacts/${created.id}`);
    expect(jsonOf(update!)).toEqual({ phone: "+14155550100", custom_attributes: { seats: 5 } });
    expectCall(search!, "POST", "/intercom/contacts/search");
    expect(jsonOf(search!)).toEqual({ query: { field: "email", operator: "=", value: "grace@example.com" }, pagination: { per_page: 10 } });
  });

  it("pages a search by starting_after: a user and a lead sharing an email, one per page", async () => {
    const { hub, scenario } = await setup();
    const user = await ok(hub, "intercom_create_contact", { role: "user", email: "ada@example.com", name: "Ada" });
    const lead = await ok(hub, "intercom_create_contact", { role: "lead", email: "ada@example.com" });
    const first = await ok(hub, "intercom_find_contacts", { email: "ada@example.com", limit: 1 });
    expect(first).toMatchObject({ total: 2, contacts: [{ id: lead.id, role: "lead" }], next_cursor: expect.any(String) });
    const second = await ok(hub, "intercom_find_contacts", { email: "ada@example.com", limit: 1, cursor: first.next_cursor });
    expect(second).toMatchObject({ total: 2, contacts: [{ id: user.id, role: "user" }], next_cursor: null });
    const searches = (await requestsOf(scenario)).filter((r) => r.path === "/intercom/contacts/search");
    expect(jsonOf(searches[1]!).pagination).toEqual({ per_page: 1, starting_after: first.next_cursor });
  });

  it("sends an email message from the default admin, and lists the admins", async () => {
    const { hub, scenario } = await setup("ic-", { default_admin_id: "991267" });
    const lead = await ok(hub, "intercom_create_contact", { role: "lead", email: "visitor@example.com" });
    const sent = await ok(hub, "intercom_send_message", {
      contact_id: lead.id,
      contact_role: "lead",
      message_type: "email",
      subject: "Welcome",
      body: "<p>Hi there</p>",
      template: "personal",
    });
    expect(sent).toEqual({ id: "403918396", message_type: "email", created_at: 1745312500, conversation_id: "512" });
    expect(await ok(hub, "intercom_list_admins", {})).toEqual({ admins: [{ id: "991267", name: "Ada Admin", email: "ada@acme.example", away: false }] });
    const [, message, admins] = await requestsOf(scenario);
    expectCall(message!, "POST", "/intercom/messages");
    expect(jsonOf(message!)).toEqual({
      message_type: "email",
      subject: "Welcome",
      template: "personal",
      body: "<p>Hi there</p>",
      from: { type: "admin", id: 991267 },
      to: { type: "lead", id: lead.id },
    });
    expectCall(admins!, "GET", "/intercom/admins");
  });

  it("reads Intercom's error.list: a duplicate email (409), an unknown contact (404), a refused token (401)", async () => {
    const { hub } = await setup("ic-", { default_admin_id: "991267" });
    const first = await ok(hub, "intercom_create_contact", { email: "ada@example.com" });
    expect(await failed(hub, "intercom_create_contact", { email: "ada@example.com" })).toMatchObject({
      error_status: 409,
      retryable: false,
      error_message: `Intercom answered 409: A contact matching those details already exists with id=${first.id}`,
    });
    expect(await failed(hub, "intercom_send_message", { contact_id: "0000nobody", body: "Hi" })).toMatchObject({
      error_status: 404,
      error_message: "Intercom answered 404: User Not Found",
    });
    const refused = await setup("wrong-");
    expect(await failed(refused.hub, "intercom_list_admins", {})).toMatchObject({
      error_status: 401,
      retryable: false,
      error_message: "Intercom answered 401: Access Token Invalid",
    });
  });
});
