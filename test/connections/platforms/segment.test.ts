// Segment's tracking calls against the fake of its HTTP Tracking API: the write key as the Basic
// user with an empty password, the camelCase body Segment reads, a messageId on every call, and
// its documented refusal (400 for a call over 32 KB).
import { describe, expect, it } from "vitest";
import { call } from "../../helpers/api";
import { connected, expectCall, failed, jsonOf, ok, onlyRequestOf, requestsOf } from "./platform-test-kit";

const setup = () => connected("segment", (hub) => ({ write_key: hub.secret("seg-") }));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("Segment", () => {
  it("tracks an event with the write key as the Basic user and an empty password", async () => {
    const { hub, scenario, settings } = await setup();
    const out = await ok(hub, "segment_track", {
      user_id: "user_42",
      event: "Order Completed",
      properties: { revenue: 49.5, currency: "EUR" },
      timestamp: "2026-04-22T09:00:00Z",
      context: { ip: "203.0.113.7" },
    });
    expect(out.accepted).toBe(true);
    expect(out.message_id).toMatch(UUID);
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/v1/track");
    expect(request.headers.authorization).toBe(`Basic ${btoa(`${settings.write_key}:`)}`);
    expect(jsonOf(request)).toEqual({
      userId: "user_42",
      event: "Order Completed",
      properties: { revenue: 49.5, currency: "EUR" },
      context: { ip: "203.0.113.7" },
      timestamp: "2026-04-22T09:00:00Z",
      messageId: out.message_id,
    });
  });

  it("identifies, records a page and a group, anonymous ids included", async () => {
    const { hub, scenario } = await setup();
    await ok(hub, "segment_identify", { user_id: "user_42", traits: { email: "ada@example.com", plan: "pro" } });
    await ok(hub, "segment_page", { anonymous_id: "anon-7", name: "Pricing", properties: { url: "https://acme.example/pricing" } });
    await ok(hub, "segment_group", { user_id: "user_42", group_id: "acct_9", traits: { name: "Acme", employees: 40 } });
    const [identify, page, group] = await requestsOf(scenario);
    expectCall(identify!, "POST", "/v1/identify");
    expect(jsonOf(identify!)).toMatchObject({ userId: "user_42", traits: { email: "ada@example.com", plan: "pro" }, messageId: expect.stringMatching(UUID) });
    expectCall(page!, "POST", "/v1/page");
    expect(jsonOf(page!)).toMatchObject({ anonymousId: "anon-7", name: "Pricing", properties: { url: "https://acme.example/pricing" } });
    expect(jsonOf(page!).userId).toBeUndefined();
    expectCall(group!, "POST", "/v1/group");
    expect(jsonOf(group!)).toMatchObject({ userId: "user_42", groupId: "acct_9", traits: { name: "Acme", employees: 40 } });
  });

  it("refuses a call with no user before sending it (Segment would answer 200 and drop it)", async () => {
    const { hub, scenario } = await setup();
    const response = await call("/v1/tools/execute", { token: hub.key, json: { name: "segment_track", arguments: { event: "Signed Up" } } });
    expect(response.status).toBe(422);
    expect(((await response.json()) as any).errors[0].message).toContain("Give user_id or anonymous_id");
    expect(await requestsOf(scenario)).toEqual([]);
  });

  it("reads Segment's 400 for a call over 32 KB as permanent", async () => {
    const { hub } = await setup();
    const out = await failed(hub, "segment_track", { user_id: "user_42", event: "Big", properties: { notes: "x".repeat(40_000) } });
    expect(out).toMatchObject({
      error_status: 400,
      retryable: false,
      error_message: "Segment answered 400: the call is over Segment's 32 KB limit or not valid JSON; send fewer properties or traits",
    });
  });
});
