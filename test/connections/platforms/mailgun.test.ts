// Mailgun's tools against the fake of its API: Basic auth as api:<key>, form-encoded writes with
// Mailgun's o:/h:/v:/t: fields (o:tag repeated once per tag), the connection's domain in the path,
// events paged by the token in paging.next (GET /v3/<domain>/events/<token>) until an empty page,
// and Mailgun's {message} refusals (a wrong key: 401 "Forbidden").
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
      tags: ["webinar", "reminder"],
      variables: { lead_id: "151" },
      reply_to: "events@acme.example",
    });
    expect(out).toEqual({ id: "<20261122090000.1.ABCDEF@mg.acme.test>", message: "Queued. Thank you." });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/v3/mg.acme.test/messages");
    expect(request.headers.authorization).toBe(`Basic ${btoa(`api:${settings.api_key}`)}`);
    // Each tag is its own o:tag field, as Mailgun's "Tagging" documents; never o:tag[0].
    const fields = new URLSearchParams(request.raw);
    expect(fields.getAll("o:tag")).toEqual(["webinar", "reminder"]);
    expect([...fields.keys()].filter((key) => key.startsWith("o:tag["))).toEqual([]);
    const { "o:tag": _lastTag, ...rest } = formOf(request);
    expect(rest).toEqual({
      from: "Acme <hi@mg.acme.test>",
      to: "ada@example.com, grace@example.com",
      subject: "Webinar tomorrow",
      template: "webinar-reminder",
      "t:variables": '{"name":"Ada"}',
      "h:Reply-To": "events@acme.example",
      "v:lead_id": "151",
    });

    // Mailgun kept the tags: the message's accepted event carries both.
    const listed = await ok(hub, "mailgun_list_events", { event: "accepted" });
    expect(listed.events).toEqual([
      {
        id: "accepted-1",
        event: "accepted",
        recipient: "ada@example.com",
        timestamp: 1763800101,
        message_id: "20261122090000.1.ABCDEF@mg.acme.test",
        tags: ["webinar", "reminder"],
        severity: null,
        reason: null,
      },
    ]);
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

  it("pages events with the token from paging.next, each event once, until Mailgun's empty page", async () => {
    const { hub, scenario } = await setup();
    const first = await ok(hub, "mailgun_list_events", { limit: 2 });
    expect(first.events.map((e: any) => [e.id, e.event])).toEqual([
      ["ev-3", "delivered"],
      ["ev-2", "delivered"],
    ]);
    expect(first.next_cursor).toMatch(/^[A-Za-z0-9_=+-]+$/);
    const second = await ok(hub, "mailgun_list_events", { cursor: first.next_cursor });
    expect(second.events).toEqual([
      {
        id: "ev-1",
        event: "failed",
        recipient: "user1@example.com",
        timestamp: 1763800001,
        message_id: "20261.abc@mg.acme.test",
        tags: [],
        severity: "permanent",
        reason: "550 5.1.1 The email account does not exist",
      },
    ]);
    // Mailgun still links a next page from the last one; that page is empty and ends the list.
    expect(second.next_cursor).toMatch(/^[A-Za-z0-9_=+-]+$/);
    const third = await ok(hub, "mailgun_list_events", { cursor: second.next_cursor });
    expect(third).toEqual({ events: [], next_cursor: null });

    const requests = await requestsOf(scenario);
    expectCall(requests[0]!, "GET", "/v3/mg.acme.test/events", { limit: "2", ascending: "no" });
    // The next pages are Mailgun's own page URLs on the connection's domain, without a `page` query.
    expectCall(requests[1]!, "GET", `/v3/mg.acme.test/events/${encodeURIComponent(first.next_cursor)}`);
    expectCall(requests[2]!, "GET", `/v3/mg.acme.test/events/${encodeURIComponent(second.next_cursor)}`);
  });

  it("a page token keeps the first page's filter; one Mailgun does not know is its 400", async () => {
    const { hub } = await setup();
    const seen: string[] = [];
    let page = await ok(hub, "mailgun_list_events", { event: "delivered", limit: 1 });
    for (let n = 0; n < 5 && page.events.length > 0; n++) {
      seen.push(...page.events.map((e: any) => e.id));
      if (!page.next_cursor) break;
      page = await ok(hub, "mailgun_list_events", { cursor: page.next_cursor });
    }
    expect(seen).toEqual(["ev-3", "ev-2"]);
    expect(page).toEqual({ events: [], next_cursor: null });

    const unknown = await failed(hub, "mailgun_list_events", { cursor: "bm90LWEtdG9rZW4" });
    expect(unknown).toMatchObject({ error_status: 400, retryable: false, error_message: "Mailgun answered 400: Invalid page token" });
  });

  it("adds a list member (upsert), form-encoded", async () => {
    const { hub, scenario } = await setup();
    const member = await ok(hub, "mailgun_add_list_member", { list: "news@mg.acme.test", address: "ada@example.com", name: "Ada", vars: { plan: "pro" } });
    expect(member).toEqual({ address: "ada@example.com", name: "Ada", subscribed: true, message: "Mailing list member has been created" });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/v3/lists/news%40mg.acme.test/members");
    expect(formOf(request)).toEqual({ address: "ada@example.com", name: "Ada", vars: '{"plan":"pro"}', subscribed: "yes", upsert: "yes" });
  });
});
