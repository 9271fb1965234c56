// Postmark's tools against the fake of its API: PascalCase bodies, the server token header,
// MessageID in the answer, {ErrorCode, Message} refusals (422), lists paged by count and offset.
import { describe, expect, it } from "vitest";
import { connected, expectCall, failed, jsonOf, ok, onlyRequestOf, requestsOf } from "./platform-test-kit";

const setup = () => connected("postmark", (hub) => ({ server_token: hub.secret("pm-") }));

describe("Postmark", () => {
  it("sends an email with the server token header and PascalCase fields, recipients joined", async () => {
    const { hub, scenario, settings } = await setup();
    const out = await ok(hub, "postmark_send_email", {
      from: "Acme <hi@acme.example>",
      to: ["ada@example.com", "grace@example.com"],
      subject: "Your receipt",
      html: "<p>Thanks</p>",
      tag: "receipt",
      metadata: { order: "42" },
    });
    expect(out).toEqual({
      message_id: "b7bc2f4a-e38e-4336-af7d-e6c392c2f817",
      to: "ada@example.com, grace@example.com",
      submitted_at: "2026-11-22T09:00:00.1234567-05:00",
    });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/email");
    expect(request.headers["x-postmark-server-token"]).toBe(settings.server_token);
    expect(request.headers.authorization).toBeUndefined();
    expect(jsonOf(request)).toEqual({
      From: "Acme <hi@acme.example>",
      To: "ada@example.com, grace@example.com",
      Subject: "Your receipt",
      HtmlBody: "<p>Thanks</p>",
      Tag: "receipt",
      Metadata: { order: "42" },
      MessageStream: "outbound",
    });
  });

  it("sends a template by alias with its model; an inactive recipient is Postmark's 422 ErrorCode 406", async () => {
    const { hub, scenario } = await setup();
    await ok(hub, "postmark_send_template_email", { from: "hi@acme.example", to: "ada@example.com", template_alias: "welcome", model: { name: "Ada" } });
    expectCall(await onlyRequestOf(scenario), "POST", "/email/withTemplate");
    expect(jsonOf((await requestsOf(scenario))[0]!)).toEqual({
      From: "hi@acme.example",
      To: "ada@example.com",
      TemplateAlias: "welcome",
      TemplateModel: { name: "Ada" },
      MessageStream: "outbound",
    });
    const refused = await failed(hub, "postmark_send_email", { from: "hi@acme.example", to: "inactive@example.com", subject: "x", text: "y" });
    expect(refused).toMatchObject({
      error_status: 422,
      retryable: false,
      error_message: "Postmark answered 422: You tried to send to recipient(s) that have been marked as inactive.",
    });
  });

  it("lists sent messages by count and offset with a cursor, and bounces", async () => {
    const { hub, scenario } = await setup();
    const first = await ok(hub, "postmark_list_outbound_messages", { limit: 2 });
    expect(first.messages.map((m: any) => m.message_id)).toEqual(["msg-3", "msg-2"]);
    expect(first.messages[1]).toEqual({
      message_id: "msg-2",
      to: ["user2@example.com"],
      subject: "Receipt 2",
      status: "Sent",
      tag: "receipt",
      received_at: "2026-11-22T09:00:00-05:00",
    });
    expect(first.next_cursor).toBe("2");
    const second = await ok(hub, "postmark_list_outbound_messages", { limit: 2, cursor: "2" });
    expect(second).toMatchObject({ messages: [{ message_id: "msg-1" }], next_cursor: null });
    const bounces = await ok(hub, "postmark_list_bounces", { type: "HardBounce" });
    expect(bounces).toEqual({
      bounces: [
        {
          id: 692560173,
          type: "HardBounce",
          email: "gone@example.com",
          description: "The server was unable to deliver your message.",
          bounced_at: "2026-11-21T10:00:00-05:00",
          inactive: true,
        },
      ],
      next_cursor: null,
    });
    const requests = await requestsOf(scenario);
    expectCall(requests[0]!, "GET", "/messages/outbound", { count: "2", offset: "0" });
    expectCall(requests[1]!, "GET", "/messages/outbound", { count: "2", offset: "2" });
    expectCall(requests[2]!, "GET", "/bounces", { count: "50", offset: "0", type: "HardBounce" });
  });
});
