// ActiveCampaign's tools against the fake of its API v3 (mounted under /api/3, as on an account's
// host): the key in Api-Token, contacts synced and created with {contact: {…}}, found newest first
// by offset behind an opaque cursor (the New contact poll), tags, list subscriptions, deals in
// cents, lists, and ActiveCampaign's refusals (422 duplicate, 404, 403 for a wrong key, a 429).
import { describe, expect, it } from "vitest";
import { activecampaign } from "../../../src/connections/platforms/activecampaign";
import { PLATFORM_PACES } from "../../../src/connections/governor/defaults";
import { newScenario, scenarioUrl } from "../../tools/platform-helpers";
import { Hub, expectCall, failed, jsonOf, ok, requestsOf, respondWith } from "./platform-test-kit";

async function setup(key = "ac-") {
  const hub = await Hub.create();
  const scenario = newScenario();
  const settings = { account: "acme", api_key: hub.secret(key), base_url: `${scenarioUrl(scenario)}/api/3` };
  await hub.connect("activecampaign", settings);
  return { hub, scenario, settings };
}

describe("ActiveCampaign", () => {
  it("syncs a contact twice (created, then updated), creates another, reads one, the key in Api-Token only", async () => {
    const { hub, scenario, settings } = await setup();
    const synced = await ok(hub, "activecampaign_sync_contact", {
      email: "grace@example.com",
      first_name: "Grace",
      last_name: "Hopper",
      field_values: [{ field: "3", value: "pro" }],
    });
    expect(synced).toEqual({
      id: "111",
      email: "grace@example.com",
      first_name: "Grace",
      last_name: "Hopper",
      phone: null,
      created_at: "2026-04-22T09:01:00-05:00",
      updated_at: "2026-04-22T09:01:00-05:00",
      field_values: [{ field: "3", value: "pro" }],
    });
    const again = await ok(hub, "activecampaign_sync_contact", { email: "grace@example.com", phone: "+14155550100" });
    expect(again).toMatchObject({ id: "111", first_name: "Grace", phone: "+14155550100", field_values: [{ field: "3", value: "pro" }] });
    const created = await ok(hub, "activecampaign_create_contact", { email: "ada@example.com", first_name: "Ada" });
    expect(created).toMatchObject({ id: "112", email: "ada@example.com", first_name: "Ada", last_name: null });
    expect(await ok(hub, "activecampaign_get_contact", { contact_id: "111" })).toEqual({
      id: "111",
      email: "grace@example.com",
      first_name: "Grace",
      last_name: "Hopper",
      phone: "+14155550100",
      created_at: "2026-04-22T09:01:00-05:00",
      updated_at: "2026-04-22T09:31:00-05:00",
      field_values: [{ field: "3", value: "pro" }],
    });

    const [first, second, create, read] = await requestsOf(scenario);
    expectCall(first!, "POST", "/api/3/contact/sync");
    expect(first!.headers["api-token"]).toBe(settings.api_key);
    expect(first!.headers.authorization).toBeUndefined();
    expect(jsonOf(first!)).toEqual({
      contact: { email: "grace@example.com", firstName: "Grace", lastName: "Hopper", fieldValues: [{ field: "3", value: "pro" }] },
    });
    expect(jsonOf(second!)).toEqual({ contact: { email: "grace@example.com", phone: "+14155550100" } });
    expectCall(create!, "POST", "/api/3/contacts");
    expect(jsonOf(create!)).toEqual({ contact: { email: "ada@example.com", firstName: "Ada" } });
    expectCall(read!, "GET", "/api/3/contacts/111");
  });

  it("finds contacts newest first a page at a time behind an opaque cursor, for the New contact poll, and by email", async () => {
    const { hub, scenario } = await setup();
    expect(activecampaign.polls).toEqual([{ title: "New contact", action: "find_contacts", arguments: { limit: 50 }, items_path: "contacts", id_path: "id" }]);
    for (const email of ["a@example.com", "b@example.com", "c@example.com"]) await ok(hub, "activecampaign_sync_contact", { email });
    const page = await ok(hub, "activecampaign_find_contacts", { limit: 2 });
    expect(page.contacts.map((c: any) => c.email)).toEqual(["c@example.com", "b@example.com"]);
    expect(page).toMatchObject({ total: 3, next_cursor: "o1.2" });
    const rest = await ok(hub, "activecampaign_find_contacts", { limit: 2, cursor: page.next_cursor });
    expect(rest).toMatchObject({ contacts: [{ id: "111", email: "a@example.com" }], total: 3, next_cursor: null });
    const one = await ok(hub, "activecampaign_find_contacts", { email: "b@example.com", tag_id: "20" });
    expect(one).toMatchObject({ contacts: [{ id: "112", email: "b@example.com" }], total: 1, next_cursor: null });

    const requests = (await requestsOf(scenario)).slice(3);
    expectCall(requests[0]!, "GET", "/api/3/contacts", { "orders[cdate]": "DESC", limit: "2", offset: "0" });
    expectCall(requests[1]!, "GET", "/api/3/contacts", { "orders[cdate]": "DESC", limit: "2", offset: "2" });
    expectCall(requests[2]!, "GET", "/api/3/contacts", { email: "b@example.com", tagid: "20", "orders[cdate]": "DESC", limit: "20", offset: "0" });
    // A cursor the tool did not hand out is refused before anything is sent.
    expect(await failed(hub, "activecampaign_find_contacts", { cursor: "o1.zzzzzzzz" })).toMatchObject({ error_status: 400, retryable: false });
    expect(await requestsOf(scenario)).toHaveLength(6);
  });

  it("tags a contact, subscribes it to a list, opens a deal in cents, and lists the lists", async () => {
    const { hub, scenario } = await setup();
    const contact = await ok(hub, "activecampaign_sync_contact", { email: "lead@example.com" });
    expect(await ok(hub, "activecampaign_add_tag_to_contact", { contact_id: contact.id, tag_id: "20" })).toEqual({
      id: "7",
      contact_id: contact.id,
      tag_id: "20",
      created_at: "2026-04-22T09:30:00-05:00",
    });
    expect(await ok(hub, "activecampaign_subscribe_contact_to_list", { contact_id: contact.id, list_id: "2" })).toEqual({
      id: "12",
      contact_id: contact.id,
      list_id: "2",
      status: 1,
      subscribed_at: "2026-04-22T09:31:00-05:00",
    });
    const deal = await ok(hub, "activecampaign_create_deal", {
      title: "Acme renewal",
      value: 45678,
      currency: "USD",
      contact_id: contact.id,
      stage_id: "3",
      owner_id: "1",
    });
    expect(deal).toEqual({
      id: "4228",
      title: "Acme renewal",
      value: 45678,
      currency: "usd",
      contact_id: contact.id,
      pipeline_id: "2",
      stage_id: "3",
      owner_id: "1",
      created_at: "2026-04-22T09:32:00-05:00",
    });
    const lists = await ok(hub, "activecampaign_list_lists", { limit: 2 });
    expect(lists).toEqual({
      lists: [
        { id: "1", name: "Newsletter", string_id: "newsletter", created_at: "2026-01-05T10:00:00-06:00" },
        { id: "2", name: "Customers", string_id: "customers", created_at: "2026-02-11T10:00:00-06:00" },
      ],
      next_cursor: "o1.2",
    });
    expect(await ok(hub, "activecampaign_list_lists", { limit: 2, cursor: lists.next_cursor })).toMatchObject({ lists: [{ id: "3" }], next_cursor: null });

    const [, tag, subscribe, create, firstLists, nextLists] = await requestsOf(scenario);
    expectCall(tag!, "POST", "/api/3/contactTags");
    expect(jsonOf(tag!)).toEqual({ contactTag: { contact: contact.id, tag: "20" } });
    expectCall(subscribe!, "POST", "/api/3/contactLists");
    expect(jsonOf(subscribe!)).toEqual({ contactList: { list: "2", contact: contact.id, status: 1 } });
    expectCall(create!, "POST", "/api/3/deals");
    expect(jsonOf(create!)).toEqual({ deal: { title: "Acme renewal", value: 45678, currency: "usd", contact: contact.id, stage: "3", owner: "1" } });
    expectCall(firstLists!, "GET", "/api/3/lists", { limit: "2", offset: "0" });
    expectCall(nextLists!, "GET", "/api/3/lists", { limit: "2", offset: "2" });
  });

  it("reads ActiveCampaign's refusals: a duplicate email (422), an unknown contact (404), a wrong key (403), a 429", async () => {
    const { hub, scenario } = await setup();
    await ok(hub, "activecampaign_create_contact", { email: "ada@example.com" });
    expect(await failed(hub, "activecampaign_create_contact", { email: "ada@example.com" })).toMatchObject({
      error_status: 422,
      retryable: false,
      error_message: "ActiveCampaign answered 422: Email address already exists in the system.",
    });
    expect(await failed(hub, "activecampaign_get_contact", { contact_id: "999" })).toMatchObject({
      error_status: 404,
      retryable: false,
      error_message: "ActiveCampaign answered 404: No Result found for Subscriber with id 999",
    });
    expect(await failed(hub, "activecampaign_add_tag_to_contact", { contact_id: "999", tag_id: "20" })).toMatchObject({
      error_status: 404,
      error_message: "ActiveCampaign answered 404: Contact not found",
    });
    expect(await failed(hub, "activecampaign_create_deal", { title: "x", value: 1, currency: "usd", stage_id: "99" })).toMatchObject({
      error_status: 422,
      error_message: "ActiveCampaign answered 422: Stage is invalid.",
    });
    // Neither pipeline nor stage: refused before anything is sent.
    const missing = await hub.send("/v1/tools/execute", { json: { name: "activecampaign_create_deal", arguments: { title: "x", value: 1, currency: "usd" } } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual([{ location: "body", field: "arguments", message: "Give the pipeline_id or the stage_id." }]);
    expect(await requestsOf(scenario)).toHaveLength(5);

    const wrong = await setup("wrong-");
    expect(await failed(wrong.hub, "activecampaign_list_lists", {})).toMatchObject({
      error_status: 403,
      retryable: false,
      error_message: "ActiveCampaign answered 403: You do not have permission to access this resource",
    });

    // Past 5 requests a second ActiveCampaign answers 429; the hub keeps to that pace by default.
    expect(PLATFORM_PACES.activecampaign).toEqual({ limit: 5, windowMs: 1000 });
    await respondWith(scenario, 429, { message: "Too Many Requests" }, { "Retry-After": "1" });
    expect(await failed(hub, "activecampaign_list_lists", {})).toMatchObject({
      error_status: 429,
      retryable: true,
      retry_after_seconds: 1,
      error_message: "ActiveCampaign answered 429: Too Many Requests",
    });
  });
});
