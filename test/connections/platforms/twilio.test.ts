// Twilio's tools against the fake of its REST API: Basic auth as AccountSid:AuthToken, the
// Messages resource form-encoded (To, From, Body; whatsapp: prefixes), 201 answers, lists paged by
// Page and PageToken, and Twilio's {code, message} errors.
import { describe, expect, it } from "vitest";
import { connected, expectCall, failed, formOf, ok, onlyRequestOf, requestsOf, respondWith } from "./platform-test-kit";

const ACCOUNT = "AC0123456789abcdef0123456789abcdef";
const setup = () => connected("twilio", (hub) => ({ account_sid: ACCOUNT, auth_token: hub.secret("tok"), default_from: "+14155550100" }));

describe("Twilio", () => {
  it("sends an SMS from the default number, form-encoded with Basic auth, and returns the queued message", async () => {
    const { hub, scenario, settings } = await setup();
    const sent = await ok(hub, "twilio_send_sms", { to: "+14155552671", body: "Your code is 123456" });
    expect(sent).toEqual({
      sid: "SM0123456789abcdef0123456789abcdef",
      status: "queued",
      to: "+14155552671",
      from: "+14155550100",
      body: "Your code is 123456",
      direction: "outbound-api",
      num_segments: 1,
      error_code: null,
      date_created: "Sat, 22 Nov 2026 09:00:00 +0000",
    });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", `/2010-04-01/Accounts/${ACCOUNT}/Messages.json`);
    expect(request.headers.authorization).toBe(`Basic ${btoa(`${ACCOUNT}:${settings.auth_token}`)}`);
    expect(formOf(request)).toEqual({ To: "+14155552671", From: "+14155550100", Body: "Your code is 123456" });
  });

  it("sends WhatsApp with whatsapp: on both numbers and a content template", async () => {
    const { hub, scenario } = await setup();
    await ok(hub, "twilio_send_whatsapp", { to: "+447700900123", content_sid: "HX0123456789abcdef0123456789abcdef", content_variables: { "1": "Ada" } });
    expect(formOf(await onlyRequestOf(scenario))).toEqual({
      To: "whatsapp:+447700900123",
      From: "whatsapp:+14155550100",
      ContentSid: "HX0123456789abcdef0123456789abcdef",
      ContentVariables: '{"1":"Ada"}',
    });
  });

  it("a trial account's unverified number is Twilio's 400 error 21608, not retried; its 429 (20429) is", async () => {
    const { hub, scenario } = await setup();
    const refused = await failed(hub, "twilio_send_sms", { to: "+15555550123", body: "hi" });
    expect(refused).toMatchObject({
      error_status: 400,
      retryable: false,
      error_message:
        "Twilio (SMS and WhatsApp) answered 400: The number is unverified. Trial accounts may only send messages to verified numbers. (error 21608)",
    });
    await respondWith(scenario, 429, { code: 20429, message: "Too Many Requests", more_info: "https://www.twilio.com/docs/errors/20429", status: 429 });
    expect(await failed(hub, "twilio_list_messages", {})).toMatchObject({ error_status: 429, retryable: true });
  });

  it("lists incoming messages newest first, paging with Page and PageToken, and reads one", async () => {
    const { hub, scenario } = await setup();
    const first = await ok(hub, "twilio_list_messages", { to: "+14155550100", limit: 2 });
    expect(first.messages.map((m: any) => [m.from, m.body, m.direction])).toEqual([
      ["+14155550103", "Reply 3", "inbound"],
      ["+14155550102", "Reply 2", "inbound"],
    ]);
    expect(first.next_cursor).toBe(`1:PASM${"2".repeat(32)}`);
    const second = await ok(hub, "twilio_list_messages", { to: "+14155550100", limit: 2, cursor: first.next_cursor });
    expect(second).toMatchObject({ messages: [{ body: "Reply 1" }], next_cursor: null });
    const one = await ok(hub, "twilio_get_message", { message_sid: `SM${"1".repeat(32)}` });
    expect(one).toMatchObject({ sid: `SM${"1".repeat(32)}`, status: "received", body: "Reply 1" });

    const requests = await requestsOf(scenario);
    expectCall(requests[0]!, "GET", `/2010-04-01/Accounts/${ACCOUNT}/Messages.json`, { To: "+14155550100", PageSize: "2" });
    expectCall(requests[1]!, "GET", `/2010-04-01/Accounts/${ACCOUNT}/Messages.json`, {
      To: "+14155550100",
      PageSize: "2",
      Page: "1",
      PageToken: `PASM${"2".repeat(32)}`,
    });
    expectCall(requests[2]!, "GET", `/2010-04-01/Accounts/${ACCOUNT}/Messages/SM${"1".repeat(32)}.json`);
  });
});
