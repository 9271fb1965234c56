// What users of native platform connections depend on beyond the request shapes: auth failures
// flag the connection (and a later success clears the flag), configs can be tested before
// saving, the right connection is chosen, bad calls are refused plainly, and secrets never
// come back.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { FAKE, Hub, MASK, newScenario, onlyRequestOf, requestsOf, respondWith, scenarioUrl } from "./platform-helpers";

async function slackConnection(hub: Hub, name = "Slack") {
  const scenario = newScenario();
  const token = hub.secret("xoxb-");
  const connection = await hub.connect("slack", { bot_token: token, base_url: scenarioUrl(scenario) }, name);
  return { scenario, token, id: connection.connection_id as number };
}

async function toolNames(hub: Hub, query = "") {
  const response = await hub.send(`/v1/tools${query}`);
  expect(response.status).toBe(200);
  return response.body.tools as { name: string; available: boolean; connection_id: number | null; unavailable_reason?: string }[];
}

describe("auth failures flag the connection", () => {
  it("Slack invalid_auth → error, token_expired → expired, then a success → active again", async () => {
    const hub = await Hub.create();
    const slack = await slackConnection(hub);

    await respondWith(slack.scenario, 200, { ok: false, error: "invalid_auth" });
    const refused = await hub.execute("slack_send_message", { channel: "C1", text: "hello" });
    expect(refused).toMatchObject({ success: false, result: null, error_message: "Slack answered invalid_auth" });
    expect(await hub.connection(slack.id)).toMatchObject({ status: "error", error_message: "Slack answered invalid_auth" });
    // The catalog stops offering the tool, and says why when asked for everything.
    expect((await toolNames(hub)).map((t) => t.name)).not.toContain("slack_send_message");
    expect((await toolNames(hub, "?include_all=true")).find((t) => t.name === "slack_send_message")).toMatchObject({
      available: false,
      connection_id: slack.id,
      unavailable_reason: expect.stringContaining("invalid_auth"),
    });

    await respondWith(slack.scenario, 200, { ok: false, error: "token_expired" });
    const expired = await hub.execute("slack_send_message", { channel: "C1", text: "hello again" });
    expect(expired).toMatchObject({ success: false, error_message: "Slack answered token_expired" });
    expect(await hub.connection(slack.id)).toMatchObject({ status: "expired", error_message: "Slack answered token_expired" });
    expect((await toolNames(hub, "?include_all=true")).find((t) => t.name === "slack_send_message")?.unavailable_reason).toContain("expired");

    // The flagged connection is still tried; a success proves the token again.
    await respondWith(slack.scenario, 200, { ok: true, channel: "C1", ts: "1" });
    const fixed = await hub.execute("slack_send_message", { channel: "C1", text: "third time" });
    expect(fixed).toMatchObject({ success: true, error_message: null, result: { channel: "C1", ts: "1" } });
    expect(await hub.connection(slack.id)).toMatchObject({ status: "active", error_message: null, last_used_at: expect.any(String) });
    expect((await toolNames(hub)).find((t) => t.name === "slack_send_message")).toMatchObject({ available: true, connection_id: slack.id });
    expect(await requestsOf(slack.scenario)).toHaveLength(3);
  });

  it("Slack errors that are not about the token fail the call but leave the connection active", async () => {
    const hub = await Hub.create();
    const slack = await slackConnection(hub);
    await respondWith(slack.scenario, 200, { ok: false, error: "channel_not_found" });
    const out = await hub.execute("slack_send_message", { channel: "C404", text: "hello" });
    expect(out).toMatchObject({
      success: false,
      error_message: "Slack answered channel_not_found: no channel with this ID or name that the app can see",
      error_status: 200,
      retryable: false,
    });
    expect(await hub.connection(slack.id)).toMatchObject({ status: "active", error_message: null });
  });

  it("HubSpot 401 EXPIRED_AUTHENTICATION → expired, other 401 → error, 500 leaves the status alone, success → active", async () => {
    const hub = await Hub.create();
    const scenario = newScenario();
    const connection = await hub.connect("hubspot", { access_token: hub.secret("pat-na1-"), base_url: scenarioUrl(scenario) });
    const id = connection.connection_id;

    await respondWith(scenario, 401, {
      status: "error",
      message: "The OAuth token used to make this call expired 2 hour(s) ago.",
      correlationId: "2f7c6c84-1b43-4b9f-8f2e-4c1a8d1e2c3b",
      category: "EXPIRED_AUTHENTICATION",
    });
    const expired = await hub.execute("hubspot_create_contact", { email: "ada@example.com" });
    expect(expired).toMatchObject({
      success: false,
      result: null,
      error_message: "HubSpot CRM answered 401: The OAuth token used to make this call expired 2 hour(s) ago.",
    });
    expect(await hub.connection(id)).toMatchObject({ status: "expired", error_message: expired.error_message });

    await respondWith(scenario, 401, { status: "error", message: "Authentication credentials not found.", category: "INVALID_AUTHENTICATION" });
    const invalid = await hub.execute("hubspot_find_contact", { email: "ada@example.com" });
    expect(invalid).toMatchObject({ success: false, error_message: "HubSpot CRM answered 401: Authentication credentials not found." });
    expect(await hub.connection(id)).toMatchObject({ status: "error", error_message: "HubSpot CRM answered 401: Authentication credentials not found." });

    await respondWith(scenario, 200, { id: "151", properties: { email: "ada@example.com" } });
    const fixed = await hub.execute("hubspot_create_contact", { email: "ada@example.com" });
    expect(fixed).toMatchObject({ success: true, result: { id: "151", properties: { email: "ada@example.com" } } });
    expect(await hub.connection(id)).toMatchObject({ status: "active", error_message: null });

    await respondWith(scenario, 500, { status: "error", message: "internal error", category: "INTERNAL_ERROR" });
    const outage = await hub.execute("hubspot_create_contact", { email: "ada@example.com" });
    expect(outage).toMatchObject({ success: false, error_message: "HubSpot CRM answered 500: internal error" });
    expect(await hub.connection(id)).toMatchObject({ status: "active", error_message: null });
  });

  it("Telegram 401 and Discord 401 mark their connections error", async () => {
    const hub = await Hub.create();
    const telegramScenario = newScenario();
    const telegram = await hub.connect("telegram", { bot_token: hub.secret("7012345678:AA"), base_url: scenarioUrl(telegramScenario) });
    await respondWith(telegramScenario, 401, { ok: false, error_code: 401, description: "Unauthorized" });
    const tg = await hub.execute("telegram_send_message", { chat_id: "42", text: "hi" });
    expect(tg).toMatchObject({ success: false, error_message: "Telegram answered 401: Unauthorized" });
    expect(await hub.connection(telegram.connection_id)).toMatchObject({ status: "error", error_message: "Telegram answered 401: Unauthorized" });

    const discordScenario = newScenario();
    const discord = await hub.connect("discord", { bot_token: hub.secret("MTEw."), base_url: scenarioUrl(discordScenario) });
    await respondWith(discordScenario, 401, { message: "401: Unauthorized", code: 0 });
    const dc = await hub.execute("discord_send_message", { channel_id: "123456789012345678", content: "hi" });
    expect(dc).toMatchObject({ success: false, error_message: "Discord answered 401: 401: Unauthorized" });
    expect(await hub.connection(discord.connection_id)).toMatchObject({ status: "error", error_message: "Discord answered 401: 401: Unauthorized" });
  });
});

describe("POST /v1/connections/test (before saving)", () => {
  async function testConfig(hub: Hub, platform: string, config: Record<string, unknown>) {
    const response = await hub.send("/v1/connections/test", { json: { platform, config } });
    expect(response.status).toBe(200);
    return response.body as { success: boolean; status: string; message: string };
  }

  it("makes each platform's cheapest authenticated call and stores nothing", async () => {
    const hub = await Hub.create();
    expect(await hub.connections()).toEqual([]);

    const slack = newScenario();
    const slackToken = hub.secret("xoxb-");
    expect(await testConfig(hub, "slack", { bot_token: slackToken, base_url: scenarioUrl(slack) })).toEqual({
      success: true,
      status: "active",
      message: "Connected to workspace Acme Marketing as hubbot.",
    });
    const authTest = await onlyRequestOf(slack);
    expect({ method: authTest.method, path: authTest.path }).toEqual({ method: "POST", path: "/auth.test" });
    expect(authTest.headers.authorization).toBe(`Bearer ${slackToken}`);

    const hubspot = newScenario();
    const hubspotToken = hub.secret("pat-na1-");
    expect(await testConfig(hub, "hubspot", { access_token: hubspotToken, base_url: scenarioUrl(hubspot) })).toEqual({
      success: true,
      status: "active",
      message: "Connected; contacts are readable.",
    });
    const contacts = await onlyRequestOf(hubspot);
    expect({ method: contacts.method, path: contacts.path, query: contacts.query }).toEqual({
      method: "GET",
      path: "/crm/v3/objects/contacts",
      query: { limit: "1" },
    });
    expect(contacts.headers.authorization).toBe(`Bearer ${hubspotToken}`);

    const notion = newScenario();
    const notionKey = hub.secret("ntn_");
    expect(await testConfig(hub, "notion", { api_key: notionKey, base_url: scenarioUrl(notion) })).toEqual({
      success: true,
      status: "active",
      message: "Connected as Hub integration in Acme.",
    });
    const me = await onlyRequestOf(notion);
    expect({ method: me.method, path: me.path }).toEqual({ method: "GET", path: "/users/me" });
    expect(me.headers.authorization).toBe(`Bearer ${notionKey}`);
    expect(me.headers["notion-version"]).toBe("2022-06-28");

    const openai = newScenario();
    const openaiKey = hub.secret("sk-proj-");
    expect(await testConfig(hub, "openai", { api_key: openaiKey, base_url: scenarioUrl(openai), model: "test-model" })).toEqual({
      success: true,
      status: "active",
      message: "Connected; 1 model(s) available.",
    });
    const models = await onlyRequestOf(openai);
    expect({ method: models.method, path: models.path }).toEqual({ method: "GET", path: "/models" });
    expect(models.headers.authorization).toBe(`Bearer ${openaiKey}`);

    const anthropic = newScenario();
    const anthropicKey = hub.secret("sk-ant-api03-");
    expect(await testConfig(hub, "anthropic", { api_key: anthropicKey, base_url: scenarioUrl(anthropic) })).toMatchObject({ success: true, status: "active" });
    const anthropicModels = await onlyRequestOf(anthropic);
    expect({ method: anthropicModels.method, path: anthropicModels.path }).toEqual({ method: "GET", path: "/models" });
    expect(anthropicModels.headers["x-api-key"]).toBe(anthropicKey);
    expect(anthropicModels.headers["anthropic-version"]).toBe("2023-06-01");
    expect(anthropicModels.headers.authorization).toBeUndefined();

    expect(await hub.connections()).toEqual([]);
  });

  it("reports refused credentials as success:false with status error or expired, and stores nothing", async () => {
    const hub = await Hub.create();

    const openai = newScenario();
    await respondWith(openai, 401, { error: { message: "Incorrect API key provided.", type: "invalid_request_error", param: null, code: "invalid_api_key" } });
    expect(await testConfig(hub, "openai", { api_key: hub.secret("sk-"), base_url: scenarioUrl(openai) })).toEqual({
      success: false,
      status: "error",
      message: "OpenAI-compatible model provider answered 401: Incorrect API key provided.",
    });

    const slack = newScenario();
    await respondWith(slack, 200, { ok: false, error: "invalid_auth" });
    expect(await testConfig(hub, "slack", { bot_token: hub.secret("xoxb-"), base_url: scenarioUrl(slack) })).toEqual({
      success: false,
      status: "error",
      message: "Slack answered invalid_auth",
    });

    const hubspot = newScenario();
    await respondWith(hubspot, 401, {
      status: "error",
      message: "The OAuth token used to make this call expired 1 day(s) ago.",
      category: "EXPIRED_AUTHENTICATION",
    });
    expect(await testConfig(hub, "hubspot", { access_token: hub.secret("pat-na1-"), base_url: scenarioUrl(hubspot) })).toEqual({
      success: false,
      status: "expired",
      message: "HubSpot CRM answered 401: The OAuth token used to make this call expired 1 day(s) ago.",
    });

    expect(await hub.connections()).toEqual([]);
  });

  it("validates the config first (422 naming config.<field>) without calling the platform", async () => {
    const hub = await Hub.create();
    const scenario = newScenario();
    const problem = await hub.problem(
      "/v1/connections/test",
      { json: { platform: "slack", config: { base_url: scenarioUrl(scenario) } } },
      422,
      "validation_failed",
    );
    expect(problem.errors?.map((e) => e.field)).toEqual(["config.bot_token"]);
    expect(await requestsOf(scenario)).toEqual([]);
  });
});

describe("choosing the connection", () => {
  it("uses the newest active connection by default, and arguments.connection_id picks another", async () => {
    const hub = await Hub.create();
    const older = await slackConnection(hub, "Old workspace");
    const newer = await slackConnection(hub, "New workspace");

    const byDefault = await hub.execute("slack_send_message", { channel: "C1", text: "default" });
    expect(byDefault.success).toBe(true);
    expect(await requestsOf(older.scenario)).toEqual([]);
    expect((await onlyRequestOf(newer.scenario)).headers.authorization).toBe(`Bearer ${newer.token}`);

    const chosen = await hub.execute("slack_send_message", { channel: "C1", text: "chosen", connection_id: older.id });
    expect(chosen.success).toBe(true);
    const request = await onlyRequestOf(older.scenario);
    expect(request.headers.authorization).toBe(`Bearer ${older.token}`);
    // connection_id selects the connection; it is not passed on to Slack.
    expect(request.body).toEqual({ channel: "C1", text: "chosen" });
    expect(await requestsOf(newer.scenario)).toHaveLength(1);

    // Once the newer one is flagged, the default moves to the older, still active, one.
    await respondWith(newer.scenario, 200, { ok: false, error: "token_revoked" });
    await hub.execute("slack_send_message", { channel: "C1", text: "flags newer", connection_id: newer.id });
    expect(await hub.connection(newer.id)).toMatchObject({ status: "error" });
    await hub.execute("slack_send_message", { channel: "C1", text: "after the flag" });
    expect((await requestsOf(older.scenario)).map((r) => r.body.text)).toEqual(["chosen", "after the flag"]);
  });

  it("refuses a connection of another platform (422) or of another user (404)", async () => {
    const hub = await Hub.create();
    const slack = await slackConnection(hub);
    const discord = await hub.connect("discord", { bot_token: hub.secret("MTEw."), base_url: scenarioUrl(newScenario()) });

    const problem = await hub.problem(
      "/v1/tools/execute",
      { json: { name: "slack_send_message", arguments: { channel: "C1", text: "hi", connection_id: discord.connection_id } } },
      422,
      "validation_failed",
    );
    expect(problem.errors).toEqual([expect.objectContaining({ field: "arguments.connection_id" })]);
    expect(problem.detail).toContain("discord");

    const stranger = await Hub.create();
    const strangers = await slackConnection(stranger);
    await hub.problem(
      "/v1/tools/execute",
      { json: { name: "slack_send_message", arguments: { channel: "C1", text: "hi", connection_id: strangers.id } } },
      404,
      "not_found",
    );

    expect(await requestsOf(slack.scenario)).toEqual([]);
    expect(await requestsOf(strangers.scenario)).toEqual([]);
  });
});

describe("refused calls", () => {
  it("a platform tool without a connection → 409 tool_unavailable naming the platform", async () => {
    const hub = await Hub.create();
    const problem = await hub.problem(
      "/v1/tools/execute",
      { json: { name: "hubspot_create_contact", arguments: { email: "ada@example.com" } } },
      409,
      "tool_unavailable",
    );
    expect(problem.detail).toContain('"hubspot"');
  });

  it("an unknown tool → 404 not_found", async () => {
    const hub = await Hub.create();
    await slackConnection(hub);
    const problem = await hub.problem("/v1/tools/execute", { json: { name: "slack_launch_rocket", arguments: {} } }, 404, "not_found");
    expect(problem.detail).toContain("slack_launch_rocket");
  });

  it("bad arguments → 422 naming arguments.<field>, and nothing is sent", async () => {
    const hub = await Hub.create();
    const slack = await slackConnection(hub);
    const missing = await hub.problem("/v1/tools/execute", { json: { name: "slack_send_message", arguments: { channel: "C1" } } }, 422, "validation_failed");
    expect(missing.errors?.map((e) => e.field)).toEqual(["arguments.text"]);
    const wrongType = await hub.problem("/v1/tools/execute", { json: { name: "slack_list_channels", arguments: { limit: "many" } } }, 422, "validation_failed");
    expect(wrongType.errors?.map((e) => e.field)).toEqual(["arguments.limit"]);
    const badEmail = await hub.problem(
      "/v1/tools/execute",
      { json: { name: "hubspot_find_contact", arguments: { email: "not-an-email" } } },
      422,
      "validation_failed",
    );
    expect(badEmail.errors?.every((e) => e.field.startsWith("arguments"))).toBe(true);
    expect(await requestsOf(slack.scenario)).toEqual([]);
  });
});

describe("secrets", () => {
  const masked = (secret: string) => `${MASK}${secret.slice(-4)}`;

  it("are masked in responses, sealed in D1, and kept when a masked value is sent back", async () => {
    const hub = await Hub.create();
    const slackScenario = newScenario();
    const httpScenario = newScenario();
    const slackToken = hub.secret("xoxb-");
    const signingSecret = hub.secret("whsec_");
    const shortKey = "Zq7-w9Xe"; // shorter than 12 characters: masked entirely
    hub.secrets.add(shortKey);

    const slack = await hub.connect("slack", { bot_token: slackToken, base_url: scenarioUrl(slackScenario), default_channel: "C0DEFAULT1" });
    expect(slack.config).toEqual({ bot_token: masked(slackToken), base_url: scenarioUrl(slackScenario), default_channel: "C0DEFAULT1" });
    const webhook = await hub.connect("webhook", { url: `${scenarioUrl(newScenario())}/hook`, signing_secret: signingSecret });
    expect(webhook.config.signing_secret).toBe(masked(signingSecret));
    const http = await hub.connect("http", { base_url: scenarioUrl(httpScenario), auth_header_name: "X-Api-Key", auth_header_value: shortKey });
    expect(http.config.auth_header_value).toBe(MASK);

    const listed = await hub.connections();
    expect(listed.map((c) => c.connection_id)).toEqual([http.connection_id, webhook.connection_id, slack.connection_id]);
    expect(listed.find((c) => c.connection_id === slack.connection_id)!.config.bot_token).toBe(masked(slackToken));
    expect(listed.find((c) => c.connection_id === webhook.connection_id)!.config.signing_secret).toBe(masked(signingSecret));
    expect(listed.find((c) => c.connection_id === http.connection_id)!.config.auth_header_value).toBe(MASK);

    for (const [id, field, secret] of [
      [slack.connection_id, "bot_token", slackToken],
      [webhook.connection_id, "signing_secret", signingSecret],
      [http.connection_id, "auth_header_value", shortKey],
    ] as const) {
      const row = await env.DB.prepare("SELECT config FROM connections WHERE id = ?").bind(id).first<{ config: string }>();
      expect(row).not.toBeNull();
      expect(row!.config).not.toContain(secret);
      const stored = JSON.parse(row!.config);
      expect(stored[field]).toEqual({ $sealed: expect.stringMatching(/^v1\.\w+\.[\w-]+\.[\w-]+$/) });
    }
    const slackRow = await env.DB.prepare("SELECT config FROM connections WHERE id = ?").bind(slack.connection_id).first<{ config: string }>();
    expect(JSON.parse(slackRow!.config)).toMatchObject({ base_url: scenarioUrl(slackScenario), default_channel: "C0DEFAULT1" });

    // A client that sends back what it read (masked) keeps the stored secret.
    const updated = await hub.send(`/v1/connections/${slack.connection_id}`, {
      method: "PUT",
      json: { name: "Renamed Slack", status: "active", config: listed.find((c) => c.connection_id === slack.connection_id)!.config },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: "Renamed Slack", config: { bot_token: masked(slackToken) } });
    const sent = await hub.execute("slack_send_message", { text: "still works", connection_id: slack.connection_id });
    expect(sent.success).toBe(true);
    expect((await onlyRequestOf(slackScenario)).headers.authorization).toBe(`Bearer ${slackToken}`);

    const viaHttp = await hub.execute("http_call", { path: "/things/abc" });
    expect(viaHttp.success).toBe(true);
    expect((await onlyRequestOf(httpScenario)).headers["x-api-key"]).toBe(shortKey);

    // Nor do the audit log or the tool catalog show them (Hub.send checks every body).
    const audit = await hub.send("/v1/audit-logs");
    expect(audit.status).toBe(200);
    expect(audit.body.data.map((r: any) => r.tool)).toEqual(["http_call", "slack_send_message"]);
    expect((await hub.send("/v1/tools?include_all=true")).status).toBe(200);
  });

  // The fake answers on 127.0.0.1; "localhost" on the same port is another origin.
  const otherOrigin = (scenario: string) => `${FAKE.replace("127.0.0.1", "localhost")}/s/${scenario}`;

  it("a redirect to another origin does not carry the Authorization header", async () => {
    const hub = await Hub.create();
    const slack = await slackConnection(hub);
    const elsewhere = newScenario();
    await respondWith(slack.scenario, 307, {}, { Location: `${otherOrigin(elsewhere)}/chat.postMessage` });
    const out = await hub.execute("slack_send_message", { channel: "C1", text: "moved" });
    expect(out).toMatchObject({ success: true, result: { channel: "C1", ts: "1763800000.000100" } });
    expect((await onlyRequestOf(slack.scenario)).headers.authorization).toBe(`Bearer ${slack.token}`);
    const followed = await onlyRequestOf(elsewhere);
    expect({ method: followed.method, path: followed.path, body: followed.body }).toEqual({
      method: "POST",
      path: "/chat.postMessage",
      body: { channel: "C1", text: "moved" },
    });
    expect(followed.headers.authorization).toBeUndefined();
  });

  // Fails today: src/net/safe-fetch.ts only drops Authorization on a cross-origin hop, so an
  // http connection's custom auth header (X-Api-Key here) is sent to whatever host the API
  // redirects to.
  it("a redirect to another origin does not carry an http connection's custom auth header", async () => {
    const hub = await Hub.create();
    const scenario = newScenario();
    const apiKey = hub.secret("key_");
    await hub.connect("http", { base_url: scenarioUrl(scenario), auth_header_name: "X-Api-Key", auth_header_value: apiKey });
    const elsewhere = newScenario();
    await respondWith(scenario, 302, {}, { Location: `${otherOrigin(elsewhere)}/things/abc` });
    const out = await hub.execute("http_call", { path: "/things/abc" });
    expect(out).toMatchObject({ success: true, result: { body: { id: "abc", kind: "thing" } } });
    expect((await onlyRequestOf(scenario)).headers["x-api-key"]).toBe(apiKey);
    const followed = await onlyRequestOf(elsewhere);
    expect(followed.path).toBe("/things/abc");
    expect(followed.headers["x-api-key"]).toBeUndefined();
  });

  it("responses of failed calls do not carry the secret either", async () => {
    const hub = await Hub.create();
    const scenario = newScenario();
    const token = hub.secret("7012345678:AA");
    await hub.connect("telegram", { bot_token: token, base_url: scenarioUrl(scenario) });
    // Telegram keeps the token in the URL path; an error must not echo the URL.
    await respondWith(scenario, 404, { ok: false, error_code: 404, description: "Not Found" });
    const out = await hub.execute("telegram_get_chat", { chat_id: "42" });
    expect(out).toMatchObject({ success: false, error_message: "Telegram answered 404: Not Found" });
    expect((await onlyRequestOf(scenario)).path).toBe(`/bot${token}/getChat`);
  });
});

describe("Resend's named errors", () => {
  it("flag a revoked key (403 invalid_api_key) but accept a sending-only key", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = `resend${crypto.randomUUID().replace(/-/g, "")}`;
    const base_url = `${FAKE}/s/${scenario}`;
    await fetch(`${FAKE}/__respond/${scenario}`, {
      method: "POST",
      body: JSON.stringify({ status: 401, body: { statusCode: 401, name: "restricted_api_key", message: "This API key is restricted to only send emails" } }),
    });
    const tested = await json(
      await call("/v1/connections/test", { token: key, json: { platform: "resend", config: { api_key: "re_sendingonly_123456", base_url } } }),
    );
    expect(tested).toMatchObject({ success: true, status: "active", message: "Connected with a sending-only key." });

    await fetch(`${FAKE}/__respond/${scenario}`, {
      method: "POST",
      body: JSON.stringify({ status: 403, body: { statusCode: 403, name: "invalid_api_key", message: "API key is invalid" } }),
    });
    const created = await json(
      await call("/v1/connections", { token: key, json: { platform: "resend", name: "Mail", config: { api_key: "re_revoked_1234567890", base_url } } }),
    );
    const result = await json(await call("/v1/tools/execute", { token: key, json: { name: "resend_get_email", arguments: { email_id: "49a3999c" } } }));
    expect(result.success).toBe(false);
    const { data } = await json(await call("/v1/connections", { token: key }));
    expect(data.find((c: any) => c.connection_id === created.connection_id)).toMatchObject({
      status: "error",
      error_message: expect.stringContaining("API key is invalid"),
    });
  });
});
