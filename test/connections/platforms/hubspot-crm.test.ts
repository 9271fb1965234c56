// HubSpot's deals, companies, notes, lists and newest contacts against the fake of its CRM API:
// {properties, associations} bodies with HubSpot's defined association types, paging by `after`,
// and HubSpot's 400 VALIDATION_ERROR for a deal stage that does not exist.
import { describe, expect, it } from "vitest";
import { connected, expectCall, failed, jsonOf, ok, onlyRequestOf, requestsOf } from "./platform-test-kit";

const setup = () => connected("hubspot", (hub) => ({ access_token: hub.secret("pat-na1-") }));
const to = (id: string, typeId: number) => ({ to: { id }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: typeId }] });

describe("HubSpot deals, companies, notes and lists", () => {
  it("creates a deal associated with a contact and a company, moves its stage, and lists deals by page", async () => {
    const { hub, scenario, settings } = await setup();
    const deal = await ok(hub, "hubspot_create_deal", { dealname: "Acme renewal", amount: 5000, contact_id: "151", company_id: "77" });
    expect(deal).toMatchObject({
      id: expect.stringMatching(/^\d+$/),
      properties: { dealname: "Acme renewal", amount: "5000", dealstage: "appointmentscheduled", pipeline: "default" },
      created_at: expect.any(String),
    });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/crm/v3/objects/deals");
    expect(request.headers.authorization).toBe(`Bearer ${settings.access_token}`);
    expect(jsonOf(request)).toEqual({
      properties: { dealname: "Acme renewal", amount: 5000, dealstage: "appointmentscheduled", pipeline: "default" },
      associations: [to("151", 3), to("77", 5)],
    });

    const moved = await ok(hub, "hubspot_update_deal", { deal_id: deal.id, properties: { dealstage: "closedwon" } });
    expect(moved.properties.dealstage).toBe("closedwon");
    await ok(hub, "hubspot_create_deal", { dealname: "Second" });
    const first = await ok(hub, "hubspot_list_deals", { limit: 1 });
    expect(first).toMatchObject({ deals: [{ id: deal.id, properties: { dealname: "Acme renewal" } }], next_cursor: "1" });
    const second = await ok(hub, "hubspot_list_deals", { limit: 1, cursor: "1" });
    expect(second).toMatchObject({ deals: [{ properties: { dealname: "Second" } }], next_cursor: null });

    const requests = await requestsOf(scenario);
    expectCall(requests[1]!, "PATCH", `/crm/v3/objects/deals/${deal.id}`);
    expect(jsonOf(requests[1]!)).toEqual({ properties: { dealstage: "closedwon" } });
    expectCall(requests[4]!, "GET", "/crm/v3/objects/deals", {
      limit: "1",
      after: "1",
      properties: "dealname,amount,dealstage,pipeline,closedate",
      archived: "false",
    });
  });

  it("a deal stage that does not exist is HubSpot's 400 VALIDATION_ERROR, read out and not retried", async () => {
    const { hub } = await setup();
    const out = await failed(hub, "hubspot_create_deal", { dealname: "Bad", dealstage: "won" });
    expect(out).toMatchObject({ error_status: 400, retryable: false });
    expect(out.error_message).toBe(
      "HubSpot CRM answered 400: Property values were not valid: won was not one of the allowed options: [appointmentscheduled, qualifiedtobuy, presentationscheduled, closedwon, closedlost]",
    );
  });

  it("creates a company for a contact and a note on a contact's and a deal's timeline", async () => {
    const { hub, scenario } = await setup();
    const company = await ok(hub, "hubspot_create_company", { name: "Acme", domain: "acme.example", contact_id: "151" });
    expect(company.properties).toMatchObject({ name: "Acme", domain: "acme.example" });
    const note = await ok(hub, "hubspot_create_note", { body: "Called; wants a demo.", contact_id: "151", deal_id: "20001" });
    expect(note.properties.hs_note_body).toBe("Called; wants a demo.");
    const [companyRequest, noteRequest] = await requestsOf(scenario);
    expect(jsonOf(companyRequest!)).toEqual({ properties: { name: "Acme", domain: "acme.example" }, associations: [to("151", 280)] });
    const noteBody = jsonOf(noteRequest!);
    expect(noteBody.associations).toEqual([to("151", 202), to("20001", 214)]);
    expect(noteBody.properties).toEqual({ hs_note_body: "Called; wants a demo.", hs_timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
  });

  it("adds contacts to a static list, saying which were missing", async () => {
    const { hub, scenario } = await setup();
    expect(await ok(hub, "hubspot_add_to_list", { list_id: "42", record_ids: ["151", "999"] })).toEqual({ added: ["151"], missing: ["999"] });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "PUT", "/crm/v3/lists/42/memberships/add");
    expect(jsonOf(request)).toEqual(["151", "999"]);
    expect(await failed(hub, "hubspot_add_to_list", { list_id: "7", record_ids: ["151"] })).toMatchObject({ error_status: 404 });
  });

  it("lists the newest contacts first (search sorted by createdate), for the New contact poll", async () => {
    const { hub, scenario } = await setup();
    await ok(hub, "hubspot_create_contact", { email: "first@example.com" });
    await ok(hub, "hubspot_create_contact", { email: "second@example.com" });
    const newest = await ok(hub, "hubspot_list_new_contacts", { limit: 1 });
    expect(newest).toMatchObject({ contacts: [{ properties: { email: "second@example.com" } }], next_cursor: "1" });
    const request = (await requestsOf(scenario))[2]!;
    expectCall(request, "POST", "/crm/v3/objects/contacts/search");
    expect(jsonOf(request)).toEqual({
      sorts: [{ propertyName: "createdate", direction: "DESCENDING" }],
      properties: ["email", "firstname", "lastname", "company", "createdate"],
      limit: 1,
    });
  });
});
