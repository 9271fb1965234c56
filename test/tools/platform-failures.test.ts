// Each platform's error reader, against the fake answering the platform's real error shapes: the
// call fails with "<Platform> answered <status>: <the platform's message>", and the ToolResult
// says the status, whether trying again may help, and how long the platform asked to wait.
// A 429 comes last in each test: the connection's rate governor then holds its next calls.
import { describe, expect, it } from "vitest";
import { FAKE, Hub, newScenario, requestsOf, scenarioUrl } from "./platform-helpers";

async function connected(platform: string, config: (hub: Hub) => Record<string, unknown>) {
  const hub = await Hub.create();
  const scenario = newScenario();
  const connection = await hub.connect(platform, { ...config(hub), base_url: scenarioUrl(scenario) });
  return { hub, scenario, connection };
}

/** Answers the scenario's next requests with these, in order (then the canned routes again). */
async function script(scenario: string, answers: { status: number; body: unknown; headers?: Record<string, string> }[]) {
  const response = await fetch(`${FAKE}/__script/${scenario}`, { method: "POST", body: JSON.stringify(answers) });
  expect(response.status).toBe(204);
  await response.arrayBuffer();
}

describe("HubSpot's errors", () => {
  const setup = () => connected("hubspot", (hub) => ({ access_token: hub.secret("pat-na1-") }));

  it("a second contact with the same email is HubSpot's 409, permanent, with HubSpot's own message", async () => {
    const { hub, scenario, connection } = await setup();
    expect((await hub.execute("hubspot_create_contact", { email: "ada@example.com" })).result).toMatchObject({ id: "151", created: true });
    const again = await hub.execute("hubspot_create_contact", { email: "Ada@Example.com", firstname: "Ada" });
    expect(again).toMatchObject({
      success: false,
      result: null,
      error_message: "HubSpot CRM answered 409: Contact already exists. Existing ID: 151",
      error_status: 409,
      retryable: false,
      retry_after_seconds: null,
    });
    expect(await requestsOf(scenario)).toHaveLength(2);
    // A duplicate is not the credentials' fault.
    expect(await hub.connection(connection.connection_id)).toMatchObject({ status: "active", error_message: null });
  });

  it('with if_exists: "update" the 409 updates the existing contact instead', async () => {
    const { hub, scenario } = await setup();
    await hub.execute("hubspot_create_contact", { email: "ada@example.com", firstname: "Ada" });
    const returning = await hub.execute("hubspot_create_contact", { email: "ada@example.com", company: "Analytical Engines", if_exists: "update" });
    expect(returning).toMatchObject({ success: true, error_status: null, retryable: false });
    expect(returning.result).toEqual({ id: "151", properties: { email: "ada@example.com", firstname: "Ada", company: "Analytical Engines" }, created: false });
    const requests = await requestsOf(scenario);
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /crm/v3/objects/contacts",
      "POST /crm/v3/objects/contacts",
      "PATCH /crm/v3/objects/contacts/151",
    ]);
    expect(requests[2]!.body).toEqual({ properties: { email: "ada@example.com", company: "Analytical Engines" } });
    // A new email is still simply created.
    expect((await hub.execute("hubspot_create_contact", { email: "grace@example.com", if_exists: "update" })).result).toMatchObject({
      id: "152",
      created: true,
    });
  });

  it("an unknown property is HubSpot's 400 VALIDATION_ERROR, its embedded details read out", async () => {
    const { hub } = await setup();
    const out = await hub.execute("hubspot_create_contact", { email: "ada@example.com", properties: { favorite_color: "green" } });
    expect(out).toMatchObject({
      success: false,
      error_message: 'HubSpot CRM answered 400: Property values were not valid: Property "favorite_color" does not exist',
      error_status: 400,
      retryable: false,
    });
  });

  it("updating a contact that does not exist is a permanent 404", async () => {
    const { hub } = await setup();
    const out = await hub.execute("hubspot_update_contact", { contact_id: "999", properties: { lifecyclestage: "customer" } });
    expect(out).toMatchObject({ success: false, error_message: "HubSpot CRM answered 404: resource not found", error_status: 404, retryable: false });
  });

  it("a 429 with Retry-After is transient and says how long to wait", async () => {
    const { hub, scenario } = await setup();
    await script(scenario, [
      {
        status: 429,
        body: { status: "error", message: "You have reached your secondly limit.", errorType: "RATE_LIMIT", policyName: "SECONDLY", category: "RATE_LIMITS" },
        headers: { "Retry-After": "12" },
      },
    ]);
    expect(await hub.execute("hubspot_list_contacts", {})).toMatchObject({
      success: false,
      error_message: "HubSpot CRM answered 429: You have reached your secondly limit.",
      error_status: 429,
      retryable: true,
      retry_after_seconds: 12,
    });
  });
});

describe("Slack's errors (HTTP 200, ok:false)", () => {
  it("not_in_channel fails with Slack's code and what to do, permanent, the connection still active", async () => {
    const { hub, connection } = await connected("slack", (hub) => ({ bot_token: hub.secret("xoxb-") }));
    const out = await hub.execute("slack_send_message", { channel: "#random", text: "hello" });
    expect(out).toMatchObject({
      success: false,
      error_message: "Slack answered not_in_channel: the app is not a member of this channel; invite it there (/invite @your-app) or use another channel",
      error_status: 200,
      retryable: false,
    });
    expect(await hub.connection(connection.connection_id)).toMatchObject({ status: "active" });
  });

  it("missing_scope names the scope needed; ratelimited (HTTP 429 with Retry-After) is transient", async () => {
    const { hub, scenario } = await connected("slack", (hub) => ({ bot_token: hub.secret("xoxb-") }));
    await script(scenario, [
      { status: 200, body: { ok: false, error: "missing_scope", needed: "chat:write", provided: "channels:read" } },
      { status: 429, body: { ok: false, error: "ratelimited" }, headers: { "Retry-After": "30" } },
    ]);
    expect(await hub.execute("slack_send_message", { channel: "#general", text: "a" })).toMatchObject({
      error_message: "Slack answered missing_scope: the app needs the chat:write scope",
      retryable: false,
    });
    expect(await hub.execute("slack_send_message", { channel: "#general", text: "b" })).toMatchObject({
      error_message: "Slack answered 429: ratelimited (Slack is limiting calls; the step may try again later)",
      error_status: 429,
      retryable: true,
      retry_after_seconds: 30,
    });
  });
});

describe("Airtable's, Notion's and Mailchimp's errors", () => {
  it("Airtable: a value its column refuses is a permanent 422 INVALID_VALUE_FOR_COLUMN; NOT_FOUND; a 429 waits 30 s", async () => {
    const { hub, scenario } = await connected("airtable", (hub) => ({ access_token: hub.secret("pat", ".0123abcd") }));
    const out = await hub.execute("airtable_create_record", { base_id: "appABCDEFGHIJKLMN", table: "Leads", fields: { Name: "Ada", Score: "high" } });
    expect(out).toMatchObject({
      success: false,
      error_message: 'Airtable answered 422: INVALID_VALUE_FOR_COLUMN: Field "Score" cannot accept the provided value',
      error_status: 422,
      retryable: false,
    });
    // typecast turns a numeric string into the number.
    expect(
      (await hub.execute("airtable_create_record", { base_id: "appABCDEFGHIJKLMN", table: "Leads", fields: { Score: "9" }, typecast: true })).success,
    ).toBe(true);

    await script(scenario, [{ status: 404, body: { error: "NOT_FOUND" } }]);
    expect((await hub.execute("airtable_list_records", { base_id: "appABCDEFGHIJKLMN", table: "Gone" })).error_message).toBe(
      "Airtable answered 404: NOT_FOUND",
    );
    // Airtable's 429 carries no Retry-After; its documented wait is 30 s.
    await script(scenario, [{ status: 429, body: { errors: [{ error: "RATE_LIMIT_REACHED", message: "Rate limit exceeded. Please try again later" }] } }]);
    expect(await hub.execute("airtable_list_records", { base_id: "appABCDEFGHIJKLMN", table: "Leads" })).toMatchObject({
      error_status: 429,
      retryable: true,
      retry_after_seconds: 30,
    });
  });

  it("Notion: object_not_found says to share the database; 503 is transient", async () => {
    const { hub, scenario } = await connected("notion", (hub) => ({ api_key: hub.secret("ntn_") }));
    const database_id = "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9";
    await script(scenario, [
      {
        status: 404,
        body: {
          object: "error",
          status: 404,
          code: "object_not_found",
          message: `Could not find database with ID: ${database_id}. Make sure the relevant pages and databases are shared with your integration.`,
        },
      },
      { status: 503, body: { object: "error", status: 503, code: "service_unavailable", message: "Notion is unavailable, please try again later." } },
    ]);
    expect(await hub.execute("notion_query_database", { database_id })).toMatchObject({
      error_message: `Notion answered 404: Could not find database with ID: ${database_id}. Make sure the relevant pages and databases are shared with your integration. (share the page or database with the integration)`,
      error_status: 404,
      retryable: false,
    });
    expect(await hub.execute("notion_query_database", { database_id })).toMatchObject({
      error_message: "Notion answered 503: Notion is unavailable, please try again later.",
      retryable: true,
    });
  });

  it("Mailchimp: problem details with field errors, permanent", async () => {
    const { hub, scenario } = await connected("mailchimp", (hub) => ({ api_key: hub.secret("", "-us21") }));
    await script(scenario, [
      {
        status: 400,
        body: {
          type: "https://mailchimp.com/developer/marketing/docs/errors/",
          title: "Invalid Resource",
          status: 400,
          detail: "Your merge fields were invalid.",
          instance: "8cf2c011-a212-9b3a-6c51-a4d631a124b4",
          errors: [{ field: "FNAME", message: "Please enter a value" }],
        },
      },
    ]);
    expect(await hub.execute("mailchimp_upsert_member", { list_id: "a1b2c3d4e5", email: "ada@example.com" })).toMatchObject({
      error_message: "Mailchimp answered 400: Invalid Resource: Your merge fields were invalid.; FNAME: Please enter a value",
      error_status: 400,
      retryable: false,
    });
  });
});

describe("Resend's, Discord's and Telegram's errors", () => {
  it("Resend: an idempotency key in flight is worth retrying though it is a 409; a spent daily quota is not, though it is a 429", async () => {
    const { hub, scenario } = await connected("resend", (hub) => ({ api_key: hub.secret("re_"), default_from: "Acme <hello@acme.com>" }));
    await script(scenario, [
      {
        status: 409,
        body: { statusCode: 409, name: "concurrent_idempotent_requests", message: "Same idempotency key used while original request is still in progress." },
      },
      { status: 429, body: { statusCode: 429, name: "daily_quota_exceeded", message: "You have reached your daily email sending quota." } },
    ]);
    const email = { to: "ada@example.com", subject: "Hi", text: "Hello" };
    expect(await hub.execute("resend_send_email", email)).toMatchObject({ error_status: 409, retryable: true });
    expect(await hub.execute("resend_send_email", email)).toMatchObject({
      error_message: "Resend (email) answered 429: You have reached your daily email sending quota.",
      error_status: 429,
      retryable: false,
    });
  });

  it("Discord: Invalid Form Body names the field; a 429 waits its retry_after", async () => {
    const { hub, scenario } = await connected("discord", (hub) => ({ bot_token: hub.secret("MTEw.") }));
    await script(scenario, [
      {
        status: 400,
        body: {
          code: 50035,
          message: "Invalid Form Body",
          errors: { content: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 2000 or fewer in length." }] } },
        },
      },
      { status: 429, body: { message: "You are being rate limited.", retry_after: 1.5, global: false }, headers: { "Retry-After": "1" } },
    ]);
    const send = () => hub.execute("discord_send_message", { channel_id: "123456789012345678", content: "hi" });
    expect(await send()).toMatchObject({
      error_message: "Discord answered 400: Invalid Form Body; content: Must be 2000 or fewer in length.",
      retryable: false,
    });
    // The body's retry_after (1.5 s) is longer than the header's whole second: the longer wait wins.
    expect(await send()).toMatchObject({ error_status: 429, retryable: true, retry_after_seconds: 2 });
  });

  it("Telegram: a group that moved names its new chat id; flood control's retry_after", async () => {
    const { hub, scenario } = await connected("telegram", (hub) => ({ bot_token: hub.secret("7012345678:AA") }));
    await script(scenario, [
      {
        status: 400,
        body: {
          ok: false,
          error_code: 400,
          description: "Bad Request: group chat was upgraded to a supergroup chat",
          parameters: { migrate_to_chat_id: -1001234567890 },
        },
      },
      { status: 429, body: { ok: false, error_code: 429, description: "Too Many Requests: retry after 35", parameters: { retry_after: 35 } } },
    ]);
    expect(await hub.execute("telegram_send_message", { chat_id: "-42", text: "hi" })).toMatchObject({
      error_message: "Telegram answered 400: Bad Request: group chat was upgraded to a supergroup chat (the chat is now -1001234567890; use that chat_id)",
      retryable: false,
    });
    expect(await hub.execute("telegram_send_message", { chat_id: "-42", text: "hi" })).toMatchObject({
      error_message: "Telegram answered 429: Too Many Requests: retry after 35",
      retryable: true,
      retry_after_seconds: 35,
    });
  });
});
