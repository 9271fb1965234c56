// Pipedrive's tools against the fake of its API v2: the token in x-api-token (never the URL),
// persons with emails as [{value, primary}], deals created, moved and listed newest first by cursor
// for a New deal poll, and Pipedrive's {success: false, error} refusals (400, 404, 401).
import { describe, expect, it } from "vitest";
import { pipedrive } from "../../../src/connections/platforms/pipedrive";
import { connected, expectCall, failed, jsonOf, ok, requestsOf } from "./platform-test-kit";

const setup = (token = "pd-") => connected("pipedrive", (hub) => ({ company_domain: "acme", api_token: hub.secret(token) }));

describe("Pipedrive", () => {
  it("creates, finds and updates a person, the token in x-api-token only", async () => {
    const { hub, scenario, settings } = await setup();
    const created = await ok(hub, "pipedrive_create_person", {
      name: "Grace Hopper",
      emails: ["grace@example.com", "g@home.example"],
      phones: ["+14155550100"],
    });
    expect(created).toEqual({
      id: 101,
      name: "Grace Hopper",
      emails: ["grace@example.com", "g@home.example"],
      phones: ["+14155550100"],
      org_id: null,
      owner_id: 7,
      add_time: expect.stringMatching(/^2026-04-22T09:00:\d\dZ$/),
    });
    const found = await ok(hub, "pipedrive_find_persons", { term: "grace@example.com", fields: "email" });
    expect(found).toEqual({
      persons: [{ id: 101, name: "Grace Hopper", emails: ["grace@example.com", "g@home.example"], phones: ["+14155550100"], organization: null }],
      next_cursor: null,
    });
    expect(await ok(hub, "pipedrive_update_person", { person_id: 101, org_id: 5 })).toMatchObject({ id: 101, name: "Grace Hopper", org_id: 5 });

    const [create, search, update] = await requestsOf(scenario);
    expectCall(create!, "POST", "/api/v2/persons");
    expect(create!.headers["x-api-token"]).toBe(settings.api_token);
    expect(create!.headers.authorization).toBeUndefined();
    expect(jsonOf(create!)).toEqual({
      name: "Grace Hopper",
      emails: [
        { value: "grace@example.com", primary: true, label: "work" },
        { value: "g@home.example", primary: false, label: "work" },
      ],
      phones: [{ value: "+14155550100", primary: true, label: "work" }],
    });
    expectCall(search!, "GET", "/api/v2/persons/search", { term: "grace@example.com", fields: "email", exact_match: "true", limit: "10" });
    expectCall(update!, "PATCH", "/api/v2/persons/101");
    expect(jsonOf(update!)).toEqual({ org_id: 5 });
  });

  it("creates deals, marks one won, and lists them newest first by cursor for the New deal poll", async () => {
    const { hub, scenario } = await setup();
    expect(pipedrive.polls).toEqual([{ title: "New deal", action: "list_deals", arguments: { limit: 50 }, items_path: "deals", id_path: "id" }]);
    const first = await ok(hub, "pipedrive_create_deal", { title: "Acme renewal", value: 12000, currency: "EUR", person_id: 101, stage_id: 2 });
    expect(first).toMatchObject({ id: 1, title: "Acme renewal", value: 12000, currency: "EUR", status: "open", stage_id: 2, person_id: 101, pipeline_id: 1 });
    await ok(hub, "pipedrive_create_deal", { title: "Globex pilot" });
    await ok(hub, "pipedrive_create_deal", { title: "Initech upsell" });
    expect(await ok(hub, "pipedrive_update_deal", { deal_id: 1, status: "won" })).toMatchObject({ id: 1, status: "won" });
    const page = await ok(hub, "pipedrive_list_deals", { limit: 2 });
    expect(page.deals.map((d: any) => d.title)).toEqual(["Initech upsell", "Globex pilot"]);
    const rest = await ok(hub, "pipedrive_list_deals", { limit: 2, cursor: page.next_cursor });
    expect(rest).toMatchObject({ deals: [{ title: "Acme renewal", status: "won" }], next_cursor: null });

    const requests = await requestsOf(scenario);
    expectCall(requests[0]!, "POST", "/api/v2/deals");
    expect(jsonOf(requests[0]!)).toEqual({ title: "Acme renewal", value: 12000, currency: "EUR", person_id: 101, stage_id: 2 });
    expectCall(requests[3]!, "PATCH", "/api/v2/deals/1");
    expect(jsonOf(requests[3]!)).toEqual({ status: "won" });
    expectCall(requests[4]!, "GET", "/api/v2/deals", { sort_by: "add_time", sort_direction: "desc", limit: "2" });
    expectCall(requests[5]!, "GET", "/api/v2/deals", { sort_by: "add_time", sort_direction: "desc", limit: "2", cursor: page.next_cursor });
  });

  it("reads Pipedrive's refusals: an unknown stage (400), an unknown deal (404), a refused token (401)", async () => {
    const { hub } = await setup();
    expect(await failed(hub, "pipedrive_create_deal", { title: "x", stage_id: 99 })).toMatchObject({
      error_status: 400,
      retryable: false,
      error_message: "Pipedrive answered 400: Stage with id 99 does not exist.",
    });
    expect(await failed(hub, "pipedrive_update_deal", { deal_id: 404, status: "lost" })).toMatchObject({
      error_status: 404,
      error_message: "Pipedrive answered 404: Deal not found",
    });
    const refused = await setup("wrong-");
    expect(await failed(refused.hub, "pipedrive_list_deals", {})).toMatchObject({
      error_status: 401,
      retryable: false,
      error_message: "Pipedrive answered 401: unauthorized access",
    });
  });
});
