// Native platform tools, run through POST /v1/tools/execute against the loopback platform fake:
// each test checks the exact request the real public API expects (method, path, query, auth
// header, JSON body) and that the tool maps the API's answer into its result.
import { describe, expect, it } from "vitest";
import { FAKE, Hub, hmacSha256Hex, md5Hex, newScenario, onlyRequestOf, requestsOf, respondWith, scenarioUrl, type Recorded } from "./platform-helpers";

/** Method, path and query exactly; JSON in (for writes) and JSON accepted. */
function expectCall(request: Recorded, method: string, path: string, query: Record<string, string> = {}) {
  expect({ method: request.method, path: request.path, query: request.query }).toEqual({ method, path, query });
  expect(request.headers.accept).toBe("application/json");
  if (method === "GET") {
    expect(request.raw).toBe("");
    expect(request.headers["content-type"]).toBeUndefined();
  } else {
    expect(request.headers["content-type"]).toBe("application/json");
  }
}

/** A user with one connection of `platform` pointing at a fresh scenario. */
async function connected(platform: string, config: (hub: Hub) => Record<string, unknown>) {
  const hub = await Hub.create();
  const scenario = newScenario();
  const settings: Record<string, string> = { ...(config(hub) as Record<string, string>), base_url: scenarioUrl(scenario) };
  const connection = await hub.connect(platform, settings);
  return { hub, scenario, connection, settings };
}

describe("Slack tools", () => {
  const setup = (extra: Record<string, unknown> = {}) => connected("slack", (hub) => ({ bot_token: hub.secret("xoxb-1234-5678-"), ...extra }));

  it("slack_send_message posts chat.postMessage with the bot token and returns {channel, ts}", async () => {
    const { hub, scenario, settings } = await setup();
    const out = await hub.execute("slack_send_message", { channel: "#general", text: "Launch is *live* :rocket:", thread_ts: "1763799999.000200" });
    expect(out).toMatchObject({ success: true, error_message: null });
    expect(out.result).toEqual({ channel: "C0GENERAL", ts: "1763800000.000100" });

    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/chat.postMessage");
    expect(request.headers.authorization).toBe(`Bearer ${settings.bot_token}`);
    expect(request.body).toEqual({ channel: "#general", text: "Launch is *live* :rocket:", thread_ts: "1763799999.000200" });
  });

  it("slack_send_message falls back to the connection's default_channel and sends no thread_ts", async () => {
    const { hub, scenario } = await setup({ default_channel: "C0DEFAULT1" });
    const out = await hub.execute("slack_send_message", { text: "Daily report ready" });
    expect(out.result).toEqual({ channel: "C0DEFAULT1", ts: "1763800000.000100" });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/chat.postMessage");
    expect(request.body).toEqual({ channel: "C0DEFAULT1", text: "Daily report ready" });
    expect(Object.keys(request.body)).not.toContain("thread_ts");
  });

  it("slack_send_message without any channel fails without calling Slack and leaves the connection active", async () => {
    const { hub, scenario, connection } = await setup();
    const out = await hub.execute("slack_send_message", { text: "nowhere to go" });
    expect(out).toMatchObject({ success: false, result: null, error_message: "Name a channel, or set default_channel on the connection." });
    expect(await requestsOf(scenario)).toEqual([]);
    expect(await hub.connection(connection.connection_id)).toMatchObject({ status: "active", error_message: null });
  });

  it("slack_list_channels reads conversations.list (public, unarchived) a page at a time, the cursor in and out", async () => {
    const { hub, scenario, settings } = await setup();
    const first = await hub.execute("slack_list_channels", { limit: 2 });
    expect(first).toMatchObject({ success: true, error_message: null });
    expect(first.result.channels).toEqual([
      { id: "C0GENERAL", name: "general", is_member: true },
      { id: "C0RANDOM", name: "random", is_member: false },
    ]);
    expect(first.result.next_cursor).toEqual(expect.any(String));
    const request = await onlyRequestOf(scenario);
    expectCall(request, "GET", "/conversations.list", { limit: "2", exclude_archived: "true", types: "public_channel" });
    expect(request.headers.authorization).toBe(`Bearer ${settings.bot_token}`);

    // Slack's last page has an empty next_cursor: the tool says null.
    const second = await hub.execute("slack_list_channels", { cursor: first.result.next_cursor });
    expect(second.result).toEqual({ channels: [{ id: "C0MARKETING", name: "marketing", is_member: true }], next_cursor: null });
    const requests = await requestsOf(scenario);
    expect(requests).toHaveLength(2);
    expectCall(requests[1]!, "GET", "/conversations.list", {
      limit: "100",
      cursor: first.result.next_cursor,
      exclude_archived: "true",
      types: "public_channel",
    });
  });
});

describe("Discord tools", () => {
  const setup = (extra: Record<string, unknown> = {}) => connected("discord", (hub) => ({ bot_token: hub.secret("MTEwMDAw.", ".Gx7abc"), ...extra }));

  it("discord_send_message posts to /channels/{id}/messages with 'Authorization: Bot <token>'", async () => {
    const { hub, scenario, settings } = await setup();
    const out = await hub.execute("discord_send_message", { channel_id: "123456789012345678", content: "New lead: **Ada Lovelace**" });
    expect(out).toMatchObject({ success: true, error_message: null });
    expect(out.result).toEqual({ id: "1100000000000000001", channel_id: "123456789012345678" });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/channels/123456789012345678/messages");
    expect(request.headers.authorization).toBe(`Bot ${settings.bot_token}`);
    expect(request.body).toEqual({ content: "New lead: **Ada Lovelace**" });
  });

  it("discord_send_message uses default_channel_id when the call names no channel", async () => {
    const { hub, scenario } = await setup({ default_channel_id: "223456789012345678" });
    const out = await hub.execute("discord_send_message", { content: "Deploy finished" });
    expect(out.result).toEqual({ id: "1100000000000000001", channel_id: "223456789012345678" });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/channels/223456789012345678/messages");
    expect(request.body).toEqual({ content: "Deploy finished" });
  });

  it("discord_list_channels reads /guilds/{id}/channels and maps id, name and type", async () => {
    const { hub, scenario, settings } = await setup();
    const out = await hub.execute("discord_list_channels", { guild_id: "323456789012345678" });
    // Discord answers every channel at once: there is never a next page.
    expect(out.result).toEqual({ channels: [{ id: "200000000000000001", name: "announcements", type: 0 }], next_cursor: null });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "GET", "/guilds/323456789012345678/channels");
    expect(request.headers.authorization).toBe(`Bot ${settings.bot_token}`);
  });
});

describe("Telegram tools", () => {
  const setup = (extra: Record<string, unknown> = {}) => connected("telegram", (hub) => ({ bot_token: hub.secret("7012345678:AA"), ...extra }));

  it("telegram_send_message posts /bot<token>/sendMessage with the token in the path only", async () => {
    const { hub, scenario, settings } = await setup();
    const out = await hub.execute("telegram_send_message", {
      chat_id: "-1001234567890",
      text: "<b>Sale</b> starts now",
      parse_mode: "HTML",
      disable_notification: true,
    });
    expect(out).toMatchObject({ success: true, error_message: null });
    expect(out.result).toEqual({ message_id: 77, chat_id: -1001234567890 });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", `/bot${settings.bot_token}/sendMessage`);
    expect(request.headers.authorization).toBeUndefined();
    expect(request.body).toEqual({ chat_id: "-1001234567890", text: "<b>Sale</b> starts now", parse_mode: "HTML", disable_notification: true });
  });

  it("telegram_send_message uses default_chat_id and omits unset options", async () => {
    const { hub, scenario, settings } = await setup({ default_chat_id: "-1009876543210" });
    const out = await hub.execute("telegram_send_message", { text: "Good morning" });
    expect(out.result).toEqual({ message_id: 77, chat_id: -1009876543210 });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", `/bot${settings.bot_token}/sendMessage`);
    expect(JSON.parse(request.raw)).toStrictEqual({ chat_id: "-1009876543210", text: "Good morning" });
  });

  it("telegram_get_chat reads /bot<token>/getChat?chat_id=… and returns the chat", async () => {
    const { hub, scenario, settings } = await setup();
    const out = await hub.execute("telegram_get_chat", { chat_id: "-1001234567890" });
    expect(out.result).toEqual({ id: -1001234567890, type: "channel", title: "Acme News" });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "GET", `/bot${settings.bot_token}/getChat`, { chat_id: "-1001234567890" });
    expect(request.headers.authorization).toBeUndefined();
  });
});

describe("Resend tools", () => {
  const setup = () => connected("resend", (hub) => ({ api_key: hub.secret("re_"), default_from: "Acme <hello@acme.com>" }));

  it("resend_send_email posts /emails with the default sender, every field and the bearer key", async () => {
    const { hub, scenario, settings } = await setup();
    const args = {
      to: ["ada@example.com", "grace@example.com"],
      subject: "Welcome to Acme",
      html: "<p>Hi there</p>",
      text: "Hi there",
      reply_to: "support@acme.com",
      cc: "ops@acme.com",
      bcc: ["audit@acme.com"],
      tags: [{ name: "campaign", value: "welcome" }],
    };
    const out = await hub.execute("resend_send_email", args);
    expect(out).toMatchObject({ success: true, error_message: null });
    expect(out.result).toEqual({ id: "49a3999c-0ce1-4ea6-ab68-afcd6dc2e794" });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/emails");
    expect(request.headers.authorization).toBe(`Bearer ${settings.api_key}`);
    expect(request.body).toStrictEqual({ from: "Acme <hello@acme.com>", ...args });
  });

  it("resend_send_email prefers the call's sender, and refuses an email without a body before calling Resend", async () => {
    const { hub, scenario } = await setup();
    const out = await hub.execute("resend_send_email", { from: "Sales <sales@acme.com>", to: "ada@example.com", subject: "Quote", text: "Attached." });
    expect(out.success).toBe(true);
    const request = await onlyRequestOf(scenario);
    expect(request.body).toStrictEqual({ from: "Sales <sales@acme.com>", to: "ada@example.com", subject: "Quote", text: "Attached." });

    const empty = await hub.execute("resend_send_email", { to: "ada@example.com", subject: "Nothing" });
    expect(empty).toMatchObject({ success: false, result: null, error_message: "Give the email an html or a text body." });
    expect(await requestsOf(scenario)).toHaveLength(1);
  });

  it("resend_get_email reads /emails/{id}", async () => {
    const { hub, scenario, settings } = await setup();
    const out = await hub.execute("resend_get_email", { email_id: "49a3999c-0ce1-4ea6-ab68-afcd6dc2e794" });
    expect(out.result).toEqual({ object: "email", id: "49a3999c-0ce1-4ea6-ab68-afcd6dc2e794", last_event: "delivered" });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "GET", "/emails/49a3999c-0ce1-4ea6-ab68-afcd6dc2e794");
    expect(request.headers.authorization).toBe(`Bearer ${settings.api_key}`);
  });
});

describe("HubSpot tools", () => {
  const setup = () => connected("hubspot", (hub) => ({ access_token: hub.secret("pat-na1-") }));

  it("hubspot_create_contact posts /crm/v3/objects/contacts with {properties} (named fields and extras)", async () => {
    const { hub, scenario, settings } = await setup();
    const out = await hub.execute("hubspot_create_contact", {
      email: "ada@example.com",
      firstname: "Ada",
      lastname: "Lovelace",
      company: "Analytical Engines",
      lifecyclestage: "lead",
      properties: { hs_lead_status: "NEW", annualrevenue: 1000 },
    });
    const properties = {
      hs_lead_status: "NEW",
      annualrevenue: 1000,
      email: "ada@example.com",
      firstname: "Ada",
      lastname: "Lovelace",
      company: "Analytical Engines",
      lifecyclestage: "lead",
    };
    expect(out).toMatchObject({ success: true, error_message: null });
    expect(out.result).toEqual({ id: "151", properties, created: true });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/crm/v3/objects/contacts");
    expect(request.headers.authorization).toBe(`Bearer ${settings.access_token}`);
    expect(request.body).toStrictEqual({ properties });
  });

  it("hubspot_find_contact searches by email with an EQ filter and maps the match", async () => {
    const { hub, scenario, settings } = await setup();
    await hub.execute("hubspot_create_contact", { email: "ada@example.com", firstname: "Ada" });
    const out = await hub.execute("hubspot_find_contact", { email: "ada@example.com" });
    expect(out.result).toEqual({ found: true, id: "151", properties: { email: "ada@example.com", firstname: "Ada" } });
    const request = (await requestsOf(scenario))[1]!;
    expectCall(request, "POST", "/crm/v3/objects/contacts/search");
    expect(request.headers.authorization).toBe(`Bearer ${settings.access_token}`);
    expect(request.body).toStrictEqual({
      filterGroups: [{ filters: [{ propertyName: "email", operator: "EQ", value: "ada@example.com" }] }],
      properties: ["email", "firstname", "lastname", "company", "lifecyclestage"],
      limit: 1,
    });
  });

  it("hubspot_find_contact reports no match, and asks for the properties named", async () => {
    const { hub, scenario } = await setup();
    await respondWith(scenario, 200, { total: 0, results: [] });
    const out = await hub.execute("hubspot_find_contact", { email: "nobody@example.com", properties: ["email", "phone"] });
    expect(out).toMatchObject({ success: true, result: { found: false, id: null, properties: null } });
    const request = await onlyRequestOf(scenario);
    expect(request.body.properties).toEqual(["email", "phone"]);
    expect(request.body.filterGroups[0].filters[0].value).toBe("nobody@example.com");
  });

  it("hubspot_update_contact patches /crm/v3/objects/contacts/{id} with {properties}", async () => {
    const { hub, scenario, settings } = await setup();
    await hub.execute("hubspot_create_contact", { email: "ada@example.com" });
    const out = await hub.execute("hubspot_update_contact", { contact_id: "151", properties: { lifecyclestage: "customer", phone: "+44 20 7946 0000" } });
    expect(out.result).toEqual({ id: "151", properties: { email: "ada@example.com", lifecyclestage: "customer", phone: "+44 20 7946 0000" } });
    const request = (await requestsOf(scenario))[1]!;
    expectCall(request, "PATCH", "/crm/v3/objects/contacts/151");
    expect(request.headers.authorization).toBe(`Bearer ${settings.access_token}`);
    expect(request.body).toStrictEqual({ properties: { lifecyclestage: "customer", phone: "+44 20 7946 0000" } });
  });
});

describe("Mailchimp tools", () => {
  // A Mailchimp key ends in its data center.
  const setup = () => connected("mailchimp", (hub) => ({ api_key: hub.secret("", "-us21") }));

  function expectBasicAuth(request: Recorded, apiKey: string) {
    const header = request.headers.authorization ?? "";
    expect(header).toMatch(/^Basic [A-Za-z0-9+/]+=*$/);
    const decoded = atob(header.slice("Basic ".length));
    const colon = decoded.indexOf(":");
    expect(colon).toBeGreaterThan(0); // any user name, then the key
    expect(decoded.slice(colon + 1)).toBe(apiKey);
  }

  it("mailchimp_upsert_member PUTs /lists/{id}/members/{md5 of the lower-cased email} with Basic auth", async () => {
    const { hub, scenario, settings } = await setup();
    const hash = await md5Hex("ada.lovelace@example.com");
    expect(hash).toBe("2b9150605ac374d671a306b5fcee60a0"); // computed independently (Node's crypto)
    const out = await hub.execute("mailchimp_upsert_member", {
      list_id: "a1b2c3d4e5",
      email: "Ada.Lovelace@Example.com",
      merge_fields: { FNAME: "Ada", LNAME: "Lovelace" },
      tags: ["vip", "2026-launch"],
    });
    expect(out).toMatchObject({ success: true, error_message: null });
    expect(out.result).toEqual({ id: "abc", email: "Ada.Lovelace@Example.com", status: "subscribed", tags_added: ["vip", "2026-launch"] });
    const [request, tagging] = await requestsOf(scenario);
    expectCall(request!, "PUT", `/lists/a1b2c3d4e5/members/${hash}`);
    expectBasicAuth(request!, settings.api_key!);
    expect(request!.body).toStrictEqual({
      email_address: "Ada.Lovelace@Example.com",
      status_if_new: "subscribed",
      merge_fields: { FNAME: "Ada", LNAME: "Lovelace" },
    });
    // Tags go through the tags endpoint, which (unlike the PUT) applies them to existing members too.
    expectCall(tagging!, "POST", `/lists/a1b2c3d4e5/members/${hash}/tags`);
    expectBasicAuth(tagging!, settings.api_key!);
    expect(tagging!.body).toStrictEqual({
      tags: [
        { name: "vip", status: "active" },
        { name: "2026-launch", status: "active" },
      ],
    });
  });

  it("mailchimp_upsert_member sends the requested status for new members (double opt-in)", async () => {
    const { hub, scenario } = await setup();
    const out = await hub.execute("mailchimp_upsert_member", { list_id: "a1b2c3d4e5", email: "grace@example.com", status: "pending" });
    expect(out.result).toEqual({ id: "abc", email: "grace@example.com", status: "pending", tags_added: [] });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "PUT", `/lists/a1b2c3d4e5/members/${await md5Hex("grace@example.com")}`);
    expect(request.body).toStrictEqual({ email_address: "grace@example.com", status_if_new: "pending" });
  });

  it("mailchimp_list_audiences reads /lists with the field selection and maps member counts", async () => {
    const { hub, scenario, settings } = await setup();
    const out = await hub.execute("mailchimp_list_audiences", { count: 10 });
    expect(out.result).toEqual({
      audiences: [
        { id: "a1b2c3d4e5", name: "Newsletter", member_count: 1200 },
        { id: "b2c3d4e5f6", name: "Customers", member_count: 300 },
        { id: "c3d4e5f6a7", name: "Webinar", member_count: 85 },
      ],
      next_cursor: null,
    });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "GET", "/lists", { count: "10", fields: "lists.id,lists.name,lists.stats.member_count,total_items" });
    expectBasicAuth(request, settings.api_key!);
  });
});

describe("Airtable tools", () => {
  const setup = (extra: Record<string, unknown> = {}) => connected("airtable", (hub) => ({ access_token: hub.secret("pat", ".0123abcd"), ...extra }));

  it("airtable_create_record posts /{base}/{table} with {fields, typecast}", async () => {
    const { hub, scenario, settings } = await setup();
    const fields = { Name: "Ada Lovelace", Email: "ada@example.com", Score: 9 };
    const out = await hub.execute("airtable_create_record", { base_id: "appABCDEFGHIJKLMN", table: "Leads 2026", fields, typecast: true });
    expect(out).toMatchObject({ success: true, error_message: null });
    expect(out.result).toEqual({ id: "recNEW0000000001", created_time: "2026-11-22T09:00:00.000Z", fields });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/appABCDEFGHIJKLMN/Leads%202026");
    expect(request.headers.authorization).toBe(`Bearer ${settings.access_token}`);
    expect(request.body).toStrictEqual({ fields, typecast: true });
  });

  it("airtable_create_record uses default_base_id and typecast false by default", async () => {
    const { hub, scenario } = await setup({ default_base_id: "appZYXWVUTSRQPONM" });
    const out = await hub.execute("airtable_create_record", { table: "Leads", fields: { Name: "Grace" } });
    expect(out.success).toBe(true);
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/appZYXWVUTSRQPONM/Leads");
    expect(request.body).toStrictEqual({ fields: { Name: "Grace" }, typecast: false });
  });

  it("airtable_list_records reads /{base}/{table} with pageSize, maxRecords, filterByFormula and view", async () => {
    const { hub, scenario, settings } = await setup();
    const out = await hub.execute("airtable_list_records", {
      base_id: "appABCDEFGHIJKLMN",
      table: "Leads",
      filter_by_formula: "{Status} = 'New'",
      max_records: 5,
      view: "Grid view",
    });
    expect(out.result).toEqual({
      records: [
        { id: "rec1", fields: { Name: "Ada" } },
        { id: "rec2", fields: { Name: "Grace" } },
        { id: "rec3", fields: { Name: "Linus" } },
      ],
      next_cursor: null,
    });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "GET", "/appABCDEFGHIJKLMN/Leads", { pageSize: "20", maxRecords: "5", filterByFormula: "{Status} = 'New'", view: "Grid view" });
    expect(request.headers.authorization).toBe(`Bearer ${settings.access_token}`);
  });
});

describe("Notion tools", () => {
  const DATABASE = "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9";
  const setup = () => connected("notion", (hub) => ({ api_key: hub.secret("ntn_") }));

  it("notion_create_page posts /pages with Notion-Version, parent.database_id, the title property and paragraphs", async () => {
    const { hub, scenario, settings } = await setup();
    const out = await hub.execute("notion_create_page", {
      database_id: DATABASE,
      title: "Launch post",
      properties: { Status: { select: { name: "Draft" } } },
      content: "First paragraph.\n\nSecond paragraph.",
    });
    expect(out).toMatchObject({ success: true, error_message: null });
    expect(out.result).toEqual({ id: "59833787-2cf9-4fdf-8782-e53db20768a5", url: "https://www.notion.so/page" });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/pages");
    expect(request.headers.authorization).toBe(`Bearer ${settings.api_key}`);
    expect(request.headers["notion-version"]).toBe("2022-06-28");
    const paragraph = (content: string) => ({ object: "block", type: "paragraph", paragraph: { rich_text: [{ type: "text", text: { content } }] } });
    expect(request.body).toStrictEqual({
      parent: { database_id: DATABASE },
      properties: { Status: { select: { name: "Draft" } }, Name: { title: [{ text: { content: "Launch post" } }] } },
      children: [paragraph("First paragraph."), paragraph("Second paragraph.")],
    });
  });

  it("notion_create_page fills a custom title property", async () => {
    const { hub, scenario } = await setup();
    const out = await hub.execute("notion_create_page", { database_id: DATABASE.replaceAll("-", ""), title: "Idea", title_property: "Title" });
    expect(out.success).toBe(true);
    const request = await onlyRequestOf(scenario);
    expect(request.body).toStrictEqual({
      parent: { database_id: DATABASE.replaceAll("-", "") },
      properties: { Title: { title: [{ text: { content: "Idea" } }] } },
      children: [],
    });
  });

  it("notion_query_database posts /databases/{id}/query with filter, sorts and page_size", async () => {
    const { hub, scenario, settings } = await setup();
    const filter = { property: "Status", select: { equals: "Draft" } };
    const sorts = [{ property: "Publish date", direction: "descending" }];
    const out = await hub.execute("notion_query_database", { database_id: DATABASE, filter, sorts, page_size: 10 });
    expect(out.result).toEqual({
      pages: ["p1", "p2", "p3"].map((id) => ({ id, url: `https://www.notion.so/${id}`, properties: {} })),
      next_cursor: null,
    });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", `/databases/${DATABASE}/query`);
    expect(request.headers.authorization).toBe(`Bearer ${settings.api_key}`);
    expect(request.headers["notion-version"]).toBe("2022-06-28");
    expect(request.body).toStrictEqual({ filter, sorts, page_size: 10 });
  });
});

describe("webhook_send", () => {
  it("signs the raw body: X-Hub-Signature is sha256=<hex HMAC-SHA256 of '<timestamp>.<body>'> with the signing secret", async () => {
    const hub = await Hub.create();
    const scenario = newScenario();
    const signingSecret = hub.secret("whsec_");
    await hub.connect("webhook", { url: `${scenarioUrl(scenario)}/hook`, signing_secret: signingSecret });
    const before = Math.floor(Date.now() / 1000);
    const out = await hub.execute("webhook_send", { event: "lead.created", data: { email: "ada@example.com", score: 9 } });
    const after = Math.floor(Date.now() / 1000);
    expect(out).toMatchObject({ success: true, error_message: null });
    expect(out.result).toEqual({ delivered: true, status: 200 });

    const request = await onlyRequestOf(scenario);
    expect({ method: request.method, path: request.path }).toEqual({ method: "POST", path: "/hook" });
    expect(request.headers["content-type"]).toBe("application/json");
    const timestamp = request.headers["x-hub-timestamp"]!;
    expect(timestamp).toMatch(/^\d+$/);
    expect(Number(timestamp)).toBeGreaterThanOrEqual(before);
    expect(Number(timestamp)).toBeLessThanOrEqual(after);
    expect(request.headers["x-hub-delivery"]).toMatch(/^[\w-]{16}$/);

    const expected = await hmacSha256Hex(signingSecret, `${timestamp}.${request.raw}`);
    expect(request.headers["x-hub-signature"]).toBe(`sha256=${expected}`);
    // The signature binds the secret: another secret gives another signature.
    expect(await hmacSha256Hex(`${signingSecret}x`, `${timestamp}.${request.raw}`)).not.toBe(expected);

    expect(request.body).toEqual({ event: "lead.created", data: { email: "ada@example.com", score: 9 }, sent_at: expect.any(String) });
    expect(new Date(request.body.sent_at).getTime()).toBeGreaterThanOrEqual(before * 1000);
    expect(JSON.stringify(request.body)).not.toContain(signingSecret);
  });

  it("reports a receiver that refuses the signature (401) and flags the connection", async () => {
    const hub = await Hub.create();
    const scenario = newScenario();
    const connection = await hub.connect("webhook", { url: `${scenarioUrl(scenario)}/hook`, signing_secret: hub.secret("whsec_") });
    await respondWith(scenario, 401, { error: "bad signature" });
    const out = await hub.execute("webhook_send", { event: "ping", data: null });
    expect(out).toMatchObject({ success: false, result: null, error_message: "The receiver answered 401." });
    expect(await hub.connection(connection.connection_id)).toMatchObject({ status: "error", error_message: "The receiver answered 401." });
  });
});

describe("http_call", () => {
  it("sends the configured auth header name and value to <base_url>/things/abc and returns the JSON", async () => {
    const hub = await Hub.create();
    const scenario = newScenario();
    const apiKey = hub.secret("key_");
    await hub.connect("http", { base_url: scenarioUrl(scenario), auth_header_name: "X-Api-Key", auth_header_value: apiKey });
    const out = await hub.execute("http_call", { method: "GET", path: "/things/abc", query: { expand: "owner", limit: 5 } });
    expect(out).toMatchObject({ success: true, error_message: null });
    expect(out.result).toEqual({ body: { id: "abc", kind: "thing" } });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "GET", "/things/abc", { expand: "owner", limit: "5" });
    expect(request.headers["x-api-key"]).toBe(apiKey);
    expect(request.headers.authorization).toBeUndefined();
  });

  it("defaults the header name to Authorization", async () => {
    const hub = await Hub.create();
    const scenario = newScenario();
    const token = `Bearer ${hub.secret("tok_")}`;
    await hub.connect("http", { base_url: `${scenarioUrl(scenario)}/`, auth_header_value: token });
    const out = await hub.execute("http_call", { path: "/things/xyz" });
    expect(out.result).toEqual({ body: { id: "xyz", kind: "thing" } });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "GET", "/things/xyz");
    expect(request.headers.authorization).toBe(token);
  });
});

// Sanity check of the fake itself, so a broken scenario isolation cannot make the tests above pass.
describe("platform fake", () => {
  it("keeps scenarios apart", async () => {
    const a = newScenario();
    const b = newScenario();
    await (await fetch(`${FAKE}/s/${a}/things/one`)).arrayBuffer();
    expect((await requestsOf(a)).map((r) => r.path)).toEqual(["/things/one"]);
    expect(await requestsOf(b)).toEqual([]);
  });
});
