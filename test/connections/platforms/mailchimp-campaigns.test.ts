// Mailchimp campaigns against the fake of its Marketing API: a regular campaign created for an
// audience, its HTML set, sent (204), listed newest first; sending one without content is
// Mailchimp's 400 problem with its reason.
import { describe, expect, it } from "vitest";
import { connected, expectCall, failed, jsonOf, ok, requestsOf } from "./platform-test-kit";

const setup = () => connected("mailchimp", (hub) => ({ api_key: hub.secret("", "-us21") }));

describe("Mailchimp campaigns", () => {
  it("creates a campaign, sets its HTML, sends it and lists it as sent", async () => {
    const { hub, scenario } = await setup();
    const created = await ok(hub, "mailchimp_create_campaign", {
      list_id: "a1b2c3d4e5",
      subject_line: "November news",
      from_name: "Acme",
      reply_to: "news@acme.example",
      title: "Nov 2026",
    });
    expect(created).toEqual({
      id: expect.stringMatching(/^c\d{9}$/),
      status: "save",
      title: "Nov 2026",
      subject_line: "November news",
      list_id: "a1b2c3d4e5",
      emails_sent: 0,
      send_time: null,
      create_time: expect.any(String),
    });
    expect(await ok(hub, "mailchimp_set_campaign_content", { campaign_id: created.id, html: "<h1>News</h1>" })).toEqual({ html_length: 13 });
    expect(await ok(hub, "mailchimp_send_campaign", { campaign_id: created.id })).toEqual({ sent: true, campaign_id: created.id });
    const listed = await ok(hub, "mailchimp_list_campaigns", { status: "sent" });
    expect(listed).toMatchObject({ campaigns: [{ id: created.id, status: "sent" }], next_cursor: null });

    const requests = await requestsOf(scenario);
    expectCall(requests[0]!, "POST", "/campaigns");
    expect(requests[0]!.headers.authorization).toMatch(/^Basic /);
    expect(jsonOf(requests[0]!)).toEqual({
      type: "regular",
      recipients: { list_id: "a1b2c3d4e5" },
      settings: { subject_line: "November news", title: "Nov 2026", from_name: "Acme", reply_to: "news@acme.example" },
    });
    expectCall(requests[1]!, "PUT", `/campaigns/${created.id}/content`);
    expect(jsonOf(requests[1]!)).toEqual({ html: "<h1>News</h1>" });
    expectCall(requests[2]!, "POST", `/campaigns/${created.id}/actions/send`);
    expect(requests[2]!.raw).toBe("");
    expectCall(requests[3]!, "GET", "/campaigns", { count: "50", status: "sent", sort_field: "create_time", sort_dir: "DESC" });
  });

  it("sending a campaign without content is Mailchimp's 400 with its reason, not retried", async () => {
    const { hub } = await setup();
    const created = await ok(hub, "mailchimp_create_campaign", { list_id: "a1b2c3d4e5", subject_line: "x", from_name: "Acme", reply_to: "news@acme.example" });
    const out = await failed(hub, "mailchimp_send_campaign", { campaign_id: created.id });
    expect(out).toMatchObject({
      error_status: 400,
      retryable: false,
      error_message: "Mailchimp answered 400: Bad Request: Your Campaign is not ready to send. The campaign has no content.",
    });
  });
});
