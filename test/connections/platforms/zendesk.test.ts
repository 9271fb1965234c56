// Zendesk Support's tools against the fake of its Ticketing API: Basic auth as "<email>/token",
// {ticket} bodies, a requester by email, public comments and internal notes, tickets newest first
// by cursor for a New ticket poll, and Zendesk's refusals (422 RecordInvalid with its details for a closed ticket,
// 404, 429 with Retry-After, 401).
import { describe, expect, it } from "vitest";
import { zendesk } from "../../../src/connections/platforms/zendesk";
import { connected, expectCall, failed, jsonOf, ok, onlyRequestOf, requestsOf } from "./platform-test-kit";

const setup = (token = "zd-") => connected("zendesk", (hub) => ({ subdomain: "acme", email: "ada@acme.example", api_token: hub.secret(token) }));

describe("Zendesk Support", () => {
  it("creates a ticket for a requester by email, with Basic auth as <email>/token", async () => {
    const { hub, scenario, settings } = await setup();
    const out = await ok(hub, "zendesk_create_ticket", {
      subject: "Cannot log in",
      comment: "The reset link expired.",
      requester_email: "grace@example.com",
      requester_name: "Grace Hopper",
      priority: "high",
      tags: ["login", "web"],
      custom_fields: [{ id: 360001, value: "pro" }],
    });
    expect(out).toEqual({
      id: 3,
      subject: "Cannot log in",
      description: "The reset link expired.",
      status: "new",
      priority: "high",
      type: null,
      requester_id: 1003,
      assignee_id: null,
      tags: ["login", "web"],
      external_id: null,
      created_at: "2026-04-22T09:00:00Z",
      updated_at: "2026-04-22T09:00:00Z",
    });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/api/v2/tickets.json");
    expect(request.headers.authorization).toBe(`Basic ${btoa(`ada@acme.example/token:${settings.api_token}`)}`);
    expect(jsonOf(request)).toEqual({
      ticket: {
        subject: "Cannot log in",
        comment: { body: "The reset link expired." },
        requester: { email: "grace@example.com", name: "Grace Hopper" },
        priority: "high",
        tags: ["login", "web"],
        custom_fields: [{ id: 360001, value: "pro" }],
      },
    });
  });

  it("adds an internal note and solves a ticket, reads it, and lists tickets newest first by cursor for the New ticket poll", async () => {
    const { hub, scenario } = await setup();
    expect(zendesk.polls).toEqual([{ title: "New ticket", action: "list_tickets", arguments: { limit: 50 }, items_path: "tickets", id_path: "id" }]);
    const updated = await ok(hub, "zendesk_update_ticket", { ticket_id: 2, status: "solved", comment: "Refunded in Stripe.", public: false });
    expect(updated).toMatchObject({ id: 2, status: "solved", updated_at: "2026-04-22T10:00:00Z" });
    expect(await ok(hub, "zendesk_get_ticket", { ticket_id: 2 })).toMatchObject({ id: 2, status: "solved", subject: "Earlier question 2" });
    await ok(hub, "zendesk_create_ticket", { subject: "Newest", comment: "Hi" });
    const first = await ok(hub, "zendesk_list_tickets", { limit: 2 });
    expect(first.tickets.map((t: any) => t.id)).toEqual([3, 2]);
    const second = await ok(hub, "zendesk_list_tickets", { limit: 2, cursor: first.next_cursor });
    expect(second).toMatchObject({ tickets: [{ id: 1 }], next_cursor: null });

    const [update, get, , list, next] = await requestsOf(scenario);
    expectCall(update!, "PUT", "/api/v2/tickets/2.json");
    expect(jsonOf(update!)).toEqual({ ticket: { status: "solved", comment: { body: "Refunded in Stripe.", public: false } } });
    expectCall(get!, "GET", "/api/v2/tickets/2.json");
    expectCall(list!, "GET", "/api/v2/tickets.json", { "page[size]": "2", sort: "-id" });
    expectCall(next!, "GET", "/api/v2/tickets.json", { "page[size]": "2", "page[after]": first.next_cursor, sort: "-id" });
  });

  it("reads Zendesk's refusals: 422 with the field's detail, 404, 429 with Retry-After (retryable), 401 the connection's fault", async () => {
    const { hub } = await setup();
    expect(await failed(hub, "zendesk_update_ticket", { ticket_id: 1, comment: "Any news?" })).toMatchObject({
      error_status: 422,
      retryable: false,
      error_message: "Zendesk Support answered 422: Record validation errors; Status: closed prevents ticket update",
    });
    expect(await failed(hub, "zendesk_get_ticket", { ticket_id: 404 })).toMatchObject({
      error_status: 404,
      error_message: "Zendesk Support answered 404: Not found",
    });
    expect(await failed(hub, "zendesk_create_ticket", { subject: "rate me", comment: "y" })).toMatchObject({
      error_status: 429,
      retryable: true,
      retry_after_seconds: 42,
    });
    const refused = await setup("wrong-");
    expect(await failed(refused.hub, "zendesk_list_tickets", {})).toMatchObject({
      error_status: 401,
      error_message: "Zendesk Support answered 401: Couldn't authenticate you",
    });
  });
});
