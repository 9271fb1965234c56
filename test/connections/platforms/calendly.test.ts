// Calendly's tools against the fake of its API v2: the bearer token, lists about the token's own
// user (found with /users/me) unless one is named, page_token paging, invitees with their answers,
// a cancellation, and Calendly's {title, message} refusals.
import { describe, expect, it } from "vitest";
import { calendly } from "../../../src/connections/platforms/calendly";
import { newScenario, scenarioUrl } from "../../tools/platform-helpers";
import { Hub, expectCall, failed, jsonOf, ok, onlyRequestOf, requestsOf } from "./platform-test-kit";

const API = "https://api.calendly.com";
const ME = `${API}/users/AAAAAAAAAAAAAAAA`;

/** A connection whose base_url mounts the fake's Calendly API under /calendly (GET /users/me is Notion's path there too). */
async function setup(token = "cal-") {
  const hub = await Hub.create();
  const scenario = newScenario();
  const settings = { access_token: hub.secret(token), base_url: `${scenarioUrl(scenario)}/calendly` };
  await hub.connect("calendly", settings);
  return { hub, scenario, settings };
}

describe("Calendly", () => {
  it("lists the token's user's bookings latest first, paged by page_token; the New booking poll follows them by uri", async () => {
    const { hub, scenario, settings } = await setup();
    expect(calendly.polls).toEqual([
      { title: "New booking", action: "list_scheduled_events", arguments: { status: "active", limit: 50 }, items_path: "events", id_path: "uri" },
    ]);
    const first = await ok(hub, "calendly_list_scheduled_events", { limit: 2 });
    expect(first.events.map((e: any) => e.uuid)).toEqual(["EV3000000000000", "EV2000000000000"]);
    expect(first.events[0]).toEqual({
      uuid: "EV3000000000000",
      uri: `${API}/scheduled_events/EV3000000000000`,
      name: "30 Minute Meeting",
      status: "active",
      start_time: "2026-05-03T15:00:00.000000Z",
      end_time: "2026-05-03T15:30:00.000000Z",
      event_type: `${API}/event_types/ET1`,
      location: "https://meet.google.com/abc-3",
      invitees: 1,
      created_at: "2026-04-23T10:00:00.000000Z",
      cancellation_reason: null,
    });
    expect(first.next_cursor).toBe("tok2");
    const second = await ok(hub, "calendly_list_scheduled_events", { user: ME, limit: 2, cursor: first.next_cursor });
    expect(second).toMatchObject({ events: [{ uuid: "EV1000000000000", status: "canceled", cancellation_reason: "Conflict" }], next_cursor: null });

    const [me, list, next] = await requestsOf(scenario);
    expectCall(me!, "GET", "/calendly/users/me");
    expect(me!.headers.authorization).toBe(`Bearer ${settings.access_token}`);
    expectCall(list!, "GET", "/calendly/scheduled_events", { user: ME, sort: "start_time:desc", count: "2" });
    // A named user needs no /users/me first.
    expectCall(next!, "GET", "/calendly/scheduled_events", { user: ME, sort: "start_time:desc", count: "2", page_token: "tok2" });
  });

  it("reads the user, event types, an event and its invitees with their answers", async () => {
    const { hub, scenario } = await setup();
    expect(await ok(hub, "calendly_get_current_user", {})).toEqual({
      uri: ME,
      name: "Ada Lovelace",
      email: "ada@acme.example",
      scheduling_url: "https://calendly.com/ada",
      timezone: "Europe/London",
      organization: `${API}/organizations/BBBBBBBBBBBBBBBB`,
    });
    expect(await ok(hub, "calendly_list_event_types", { user: ME, active: true })).toEqual({
      event_types: [
        {
          uri: `${API}/event_types/ET1`,
          name: "30 Minute Meeting",
          slug: "30min",
          active: true,
          duration: 30,
          scheduling_url: "https://calendly.com/ada/30min",
        },
      ],
      next_cursor: null,
    });
    expect(await ok(hub, "calendly_get_event", { event_uuid: "EV2000000000000" })).toMatchObject({ uuid: "EV2000000000000", status: "active" });
    expect(await ok(hub, "calendly_list_event_invitees", { event_uuid: "EV3000000000000" })).toEqual({
      invitees: [
        {
          uuid: "IN1",
          uri: `${API}/scheduled_events/EV3000000000000/invitees/IN1`,
          email: "grace@example.com",
          name: "Grace Hopper",
          status: "active",
          timezone: "Europe/Paris",
          created_at: "2026-04-23T10:00:00.000000Z",
          answers: [{ question: "Company size?", answer: "50-200" }],
          utm_source: "newsletter",
          cancel_url: "https://calendly.com/cancellations/IN1",
          reschedule_url: "https://calendly.com/reschedulings/IN1",
        },
      ],
      next_cursor: null,
    });
    const requests = await requestsOf(scenario);
    expectCall(requests[1]!, "GET", "/calendly/event_types", { user: ME, active: "true", count: "20" });
    expectCall(requests[2]!, "GET", "/calendly/scheduled_events/EV2000000000000");
    expectCall(requests[3]!, "GET", "/calendly/scheduled_events/EV3000000000000/invitees", { count: "20" });
  });

  it("cancels an event with a reason; an already cancelled one is Calendly's 403, an unknown one its 404", async () => {
    const { hub, scenario } = await setup();
    expect(await ok(hub, "calendly_cancel_event", { event_uuid: "EV2000000000000", reason: "Host is ill" })).toEqual({
      canceled: true,
      reason: "Host is ill",
      canceled_by: "Ada Lovelace",
      canceler_type: "host",
    });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/calendly/scheduled_events/EV2000000000000/cancellation");
    expect(jsonOf(request)).toEqual({ reason: "Host is ill" });
    expect(await failed(hub, "calendly_cancel_event", { event_uuid: "EV1000000000000" })).toMatchObject({
      error_status: 403,
      retryable: false,
      error_message: "Calendly answered 403: This event has already been canceled.",
    });
    expect(await failed(hub, "calendly_get_event", { event_uuid: "NOPE" })).toMatchObject({
      error_status: 404,
      retryable: false,
      error_message: "Calendly answered 404: The server could not find the requested resource.",
    });
  });

  it("a refused token is the connection's fault", async () => {
    const { hub } = await setup("wrong-");
    expect(await failed(hub, "calendly_get_current_user", {})).toMatchObject({
      error_status: 401,
      retryable: false,
      error_message: "Calendly answered 401: The access token is invalid",
    });
  });
});
