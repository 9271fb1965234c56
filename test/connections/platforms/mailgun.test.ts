// Mailgun's tools against the fake of its API: Basic auth as api:<key>, form-encoded writes with
// Mailgun's o:/h:/v:/t: fields, the connection's domain in the path, events paged by token, and
// Mailgun's {message} refusals (a wrong key: 401 "Forbidden").
import { describe, expect, it } from "vitest";
import { connected, expectCall, failed, formOf, ok, onlyRequestOf, requestsOf } from "./platform-test-kit";

const setup = (key?: string) => connected("mailgun", (hub) => ({ api_key: key ?? hub.secret("key-"), domain: "mg.acme.test" }));

describe("Mailgun", () => {
  it("sends an email from the connection's domain, form-encoded, with tags, variables and a template's variables", async () => {
    const { hub, scenario, settings } = await setup();
    const out = await ok(hub, "mailgun_send_email", {
      from: "Acme <hi@mg.acme.test>",
      to: ["ada@example.com", "grace@example.com"],
      subject: "Webinar tomorrow",
      template: "webinar-reminder",
      template_variables: { name: "Ada" },
      tags: ["webinar"],
      variables: { lead_id: "151" },
      reply_to: "events@acme.example",
    });
    expect(out).toEqual({ id: "<20261122090000.1.ABCDEF@mg.acme.test>", message: "Queued. Thank you." });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/v3/mg.acme.test/messages");
    expect(request.headers.authorization).toBe(`Basic ${btoa(`api:${settings.api_key}`)}`);
    expect(formOf(request)).toEqual({
      from: "Acme <hi@mg.acme.test>",
      to: "ada@example.com, grace@example.com",
      subject: "Webinar tomorrow",
      template: "webinar-reminder",
      "t:variables": '{"name":"Ada"}',
      "h:Reply-To": "events@acme.example",
      "o:tag[0]": "webinar",
      "v:lead_id": "151",
    });
  });

  it("a refused key is Mailgun's 401 'Forbidden' and marks the connection; an unknown domain is its 404", async () => {
    const { hub, connection } = await setup("wrong-key");
    const refused = await failed(hub, "mailgun_send_email", { from: "hi@mg.acme.test", to: "a@example.com", subject: "x", text: "y" });
    expect(refused).toMatchObject({ error_status: 401, retryable: false, error_message: "Mailgun answered 401: Forbidden" });
    expect(await hub.connection(connection.connection_id)).toMatchObject({ status: "error" });

    const other = await setup();
    const missing = await failed(other.hub, "mailgun_send_email", {
      domain: "mg.other.test",
      from: "hi@mg.other.test",
      to: "a@example.com",
      subject: "x",
      text: "y",
    });
    expect(missing).toMatchObject({ error_status: 404, error_message: "Mailgun answered 404: Domain not found: mg.other.test" });
  });

  it("lists events newest first with a page token, and adds a list member (upsert)", async () => {
    const { hub, scenario } = await setup();
    const first = await ok(hub, "mailgun_list_events", { limit: 2 });
    expect(first.events.map((e: any) => [e.id, e.event])).toEqual([
      ["ev-3", "delivered"],
      ["ev-2", "delivered"],
    ]);
    expect(first.next_cursor).toBe("page2");
    const second = await ok(hub, "mailgun_list_events", { limit: 2, cursor: first.next_cursor });
    expect(second).toEqual({
      events: [
        {
          id: "ev-1",
          event: "failed",
          recipient: "user1@example.com",
          timestamp: 1763800001,
          message_id: "20261.abc@mg.acme.test",
          severity: "permanent",
          reason: "550 5.1.1 The email account does not exist",
        },
      ],
      next_cursor: null,
    });
    const member = await ok(hub, "mailgun_add_list_member", { list: "news@mg.acme.test", address: "ada@example.com", name: "Ada", vars: { plan: "pro" } });
    expect(member).toEqual({ address: "ada@example.com", name: "Ada", subscribed: true, message: "Mailing list member has been created" });

    const requests = await requestsOf(scenario);
    expectCall(requests[0]!, "GET", "/v3/mg.acme.test/events", { limit: "2", ascending: "no" });
    expectCall(requests[1]!, "GET", "/v3/mg.acme.test/events", { limit: "2", ascending: "no", page: "page2" });
    expectCall(requests[2]!, "POST", "/v3/lists/news%40mg.acme.test/members");
    expect(formOf(requests[2]!)).toEqual({ address: "ada@example.com", name: "Ada", vars: '{"plan":"pro"}', subscribed: "yes", upsert: "yes" });
  });
});
