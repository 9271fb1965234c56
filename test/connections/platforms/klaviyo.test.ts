// Klaviyo's tools against the fake of its API (mounted under /klaviyo/api): the private key, the
// pinned revision and JSON:API bodies; profiles created, updated and found newest first or by
// email (the New profile poll's list), an event tracked with its unique_id,
// lists paged by links.next, list membership and subscriptions, and Klaviyo's errors (404 with
// its pointer, 429 with Retry-After, 401).
import { describe, expect, it } from "vitest";
import { klaviyo } from "../../../src/connections/platforms/klaviyo";
import { newScenario, scenarioUrl } from "../../tools/platform-helpers";
import { Hub, type Recorded, expectCall, failed, ok, requestsOf, respondWith } from "./platform-test-kit";

async function setup(key = "pk_") {
  const hub = await Hub.create();
  const scenario = newScenario();
  const settings = { private_key: hub.secret(key), base_url: `${scenarioUrl(scenario)}/klaviyo/api` };
  await hub.connect("klaviyo", settings);
  return { hub, scenario, settings };
}

/** A JSON:API body, checked to be sent as JSON:API with the key and the revision. */
function documentOf(request: Recorded, key: string): any {
  expect(request.headers["content-type"]).toBe("application/vnd.api+json");
  expect(request.headers.authorization).toBe(`Klaviyo-API-Key ${key}`);
  expect(request.headers.revision).toBe("2026-07-15");
  return JSON.parse(request.raw);
}

describe("Klaviyo", () => {
  it("creates a profile, updates it by email and finds profiles newest first or by email", async () => {
    const { hub, scenario, settings } = await setup();
    const created = await ok(hub, "klaviyo_create_or_update_profile", {
      email: "sarah.mason@example.com",
      first_name: "Sarah",
      last_name: "Mason",
      location: { city: "Boston", country: "United States" },
      properties: { plan: "pro" },
    });
    expect(created).toMatchObject({
      email: "sarah.mason@example.com",
      first_name: "Sarah",
      last_name: "Mason",
      phone_number: null,
      external_id: null,
      properties: { plan: "pro" },
    });
    expect(created.id).toMatch(/^01JD\d{22}$/);
    const updated = await ok(hub, "klaviyo_create_or_update_profile", {
      email: "sarah.mason@example.com",
      phone_number: "+15005550006",
      properties: { seats: 5 },
    });
    expect(updated).toMatchObject({ id: created.id, phone_number: "+15005550006", first_name: "Sarah", properties: { plan: "pro", seats: 5 } });
    const second = await ok(hub, "klaviyo_create_or_update_profile", { external_id: "user_42" });
    const third = await ok(hub, "klaviyo_create_or_update_profile", { email: "ada@example.com" });

    expect(klaviyo.polls).toEqual([{ title: "New profile", action: "get_profiles", arguments: { limit: 50 }, items_path: "profiles", id_path: "id" }]);
    const page = await ok(hub, "klaviyo_get_profiles", { limit: 2 });
    expect(page.profiles.map((p: any) => p.id)).toEqual([third.id, second.id]);
    expect(page.next_cursor).toEqual(expect.any(String));
    const rest = await ok(hub, "klaviyo_get_profiles", { limit: 2, cursor: page.next_cursor });
    expect(rest).toEqual({ profiles: [expect.objectContaining({ id: created.id, email: "sarah.mason@example.com" })], next_cursor: null });
    const found = await ok(hub, "klaviyo_get_profiles", { email: "ada@example.com" });
    expect(found).toEqual({ profiles: [expect.objectContaining({ id: third.id, email: "ada@example.com" })], next_cursor: null });

    const [create, update, , , list, listRest, byEmail] = await requestsOf(scenario);
    const key = settings.private_key;
    expectCall(create!, "POST", "/klaviyo/api/profile-import");
    expect(create!.headers.accept).toBe("application/vnd.api+json");
    expect(documentOf(create!, key)).toEqual({
      data: {
        type: "profile",
        attributes: {
          email: "sarah.mason@example.com",
          first_name: "Sarah",
          last_name: "Mason",
          location: { city: "Boston", country: "United States" },
          properties: { plan: "pro" },
        },
      },
    });
    expect(documentOf(update!, key)).toEqual({
      data: { type: "profile", attributes: { email: "sarah.mason@example.com", phone_number: "+15005550006", properties: { seats: 5 } } },
    });
    expectCall(list!, "GET", "/klaviyo/api/profiles", { sort: "-created", "page[size]": "2" });
    expect(list!.headers.authorization).toBe(`Klaviyo-API-Key ${key}`);
    expect(list!.headers.revision).toBe("2026-07-15");
    expectCall(listRest!, "GET", "/klaviyo/api/profiles", { sort: "-created", "page[size]": "2", "page[cursor]": page.next_cursor });
    expectCall(byEmail!, "GET", "/klaviyo/api/profiles", { filter: 'equals(email,"ada@example.com")', sort: "-created", "page[size]": "20" });
  });

  it("tracks an event, pages the lists, adds profiles to a list and subscribes them", async () => {
    const { hub, scenario, settings } = await setup();
    const event = await ok(hub, "klaviyo_create_event", {
      metric_name: "Placed Order",
      profile: { email: "sarah.mason@example.com" },
      properties: { order_id: "1001", items: ["Boots"] },
      value: 129.5,
      value_currency: "USD",
      time: "2026-11-20T10:00:00Z",
      unique_id: "order-1001",
    });
    expect(event).toEqual({ accepted: true, metric_name: "Placed Order", unique_id: "order-1001" });

    const lists = await ok(hub, "klaviyo_list_lists", {});
    expect(lists.lists).toHaveLength(10);
    expect(lists.lists[0]).toEqual({
      id: "Lst011",
      name: "List 11",
      opt_in_process: "single_opt_in",
      created: "2026-03-20T09:00:00+00:00",
      updated: "2026-03-20T09:00:00+00:00",
    });
    const last = await ok(hub, "klaviyo_list_lists", { cursor: lists.next_cursor });
    expect(last).toEqual({ lists: [expect.objectContaining({ id: "Lst001", name: "Newsletter", opt_in_process: "double_opt_in" })], next_cursor: null });

    const added = await ok(hub, "klaviyo_add_profiles_to_list", { list_id: "Lst001", profile_ids: ["01JD0000000000000000000001"] });
    expect(added).toEqual({ list_id: "Lst001", added: 1 });
    const subscribed = await ok(hub, "klaviyo_subscribe_profiles", {
      list_id: "Lst001",
      profiles: [{ email: "sarah.mason@example.com", phone_number: "+15005550006" }, { email: "ada@example.com" }],
      channels: ["email", "sms"],
      custom_source: "Checkout",
    });
    expect(subscribed).toEqual({ accepted: true, profiles: 2, list_id: "Lst001" });

    const [track, firstLists, nextLists, add, subscribe] = await requestsOf(scenario);
    const key = settings.private_key;
    expectCall(track!, "POST", "/klaviyo/api/events");
    expect(documentOf(track!, key)).toEqual({
      data: {
        type: "event",
        attributes: {
          properties: { order_id: "1001", items: ["Boots"] },
          time: "2026-11-20T10:00:00Z",
          value: 129.5,
          value_currency: "USD",
          unique_id: "order-1001",
          metric: { data: { type: "metric", attributes: { name: "Placed Order" } } },
          profile: { data: { type: "profile", attributes: { email: "sarah.mason@example.com" } } },
        },
      },
    });
    expectCall(firstLists!, "GET", "/klaviyo/api/lists", { sort: "-created" });
    expectCall(nextLists!, "GET", "/klaviyo/api/lists", { sort: "-created", "page[cursor]": lists.next_cursor });
    expectCall(add!, "POST", "/klaviyo/api/lists/Lst001/relationships/profiles");
    expect(documentOf(add!, key)).toEqual({ data: [{ type: "profile", id: "01JD0000000000000000000001" }] });
    expectCall(subscribe!, "POST", "/klaviyo/api/profile-subscription-bulk-create-jobs");
    expect(documentOf(subscribe!, key)).toEqual({
      data: {
        type: "profile-subscription-bulk-create-job",
        attributes: {
          custom_source: "Checkout",
          profiles: {
            data: [
              {
                type: "profile",
                attributes: {
                  email: "sarah.mason@example.com",
                  phone_number: "+15005550006",
                  subscriptions: { email: { marketing: { consent: "SUBSCRIBED" } }, sms: { marketing: { consent: "SUBSCRIBED" } } },
                },
              },
              { type: "profile", attributes: { email: "ada@example.com", subscriptions: { email: { marketing: { consent: "SUBSCRIBED" } } } } },
            ],
          },
        },
        relationships: { list: { data: { type: "list", id: "Lst001" } } },
      },
    });
  });

  it("reads Klaviyo's errors: an unknown list (404), a throttled call (429, Retry-After), a refused key (401); an event for no one is refused before sending", async () => {
    const { hub, scenario } = await setup();
    expect(await failed(hub, "klaviyo_add_profiles_to_list", { list_id: "Nope00", profile_ids: ["01JD0000000000000000000001"] })).toMatchObject({
      error_status: 404,
      retryable: false,
      error_message: "Klaviyo answered 404: A list with id Nope00 does not exist.",
    });
    // Checked before anything is sent: an event needs someone to happen to.
    expect(await failed(hub, "klaviyo_create_event", { metric_name: "Viewed Product", profile: {} })).toMatchObject({
      error_status: 400,
      retryable: false,
      error_message: "Name the profile by email, phone_number or external_id.",
    });
    expect(await requestsOf(scenario)).toHaveLength(1);
    await respondWith(
      scenario,
      429,
      {
        errors: [
          {
            id: "e4eebb08-b055-4a6f-bb13-c8cb69c9eb11",
            status: 429,
            code: "throttled",
            title: "Request was throttled.",
            detail: "Request was throttled. Expected available in 2 seconds.",
            source: { pointer: "/data/" },
            meta: {},
          },
        ],
      },
      { "Retry-After": "2" },
    );
    expect(await failed(hub, "klaviyo_list_lists", {})).toMatchObject({
      error_status: 429,
      retryable: true,
      retry_after_seconds: 2,
      error_message: "Klaviyo answered 429: Request was throttled. Expected available in 2 seconds. (/data/)",
    });

    const refused = await setup("wrong_");
    expect(await failed(refused.hub, "klaviyo_get_profiles", {})).toMatchObject({
      error_status: 401,
      retryable: false,
      error_message: "Klaviyo answered 401: Missing or invalid private key. (/data/)",
    });
  });

  it("says where Klaviyo points: an unknown profile id, an unknown list in a subscription (404 with the pointer)", async () => {
    const { hub } = await setup();
    await ok(hub, "klaviyo_create_or_update_profile", { email: "grace@example.com" });
    // A profile id that is not Klaviyo's: its 404 names the field.
    expect(await failed(hub, "klaviyo_create_or_update_profile", { profile_id: "01JD9999999999999999999999", first_name: "G" })).toMatchObject({
      error_status: 404,
      error_message: "Klaviyo answered 404: A profile with id 01JD9999999999999999999999 does not exist. (/data/id)",
    });
    expect(await failed(hub, "klaviyo_subscribe_profiles", { list_id: "Lst404", profiles: [{ email: "grace@example.com" }] })).toMatchObject({
      error_status: 404,
      error_message: "Klaviyo answered 404: A list with id Lst404 does not exist. (/data/relationships/list/data/id)",
    });
  });
});
