import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Browser, newEmail } from "../dashboard/browser";
import { ORIGIN, call, expectProblem, json } from "../helpers/api";
import {
  CALLBACK,
  CLIENT_SECRET,
  apiCall,
  authorizeAt,
  connectOAuth2,
  expireAtProvider,
  expireInHub,
  getConnection,
  newClientId,
  oauth2Config,
  providerSettings,
  providerStats,
  signedInPerson,
  startOAuth,
} from "./oauth-helpers";

describe("connecting with OAuth 2.0", () => {
  it("starts pending with a PKCE authorization request, completes at the callback and calls with the token", async () => {
    const person = await signedInPerson();
    const clientId = newClientId();
    const started = await startOAuth(person.key, { platform: "oauth2", name: "Fake API", config: oauth2Config(clientId) });
    expect(new Date(started.expires_at).getTime() - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(new Date(started.expires_at).getTime() - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    const url = new URL(started.authorize_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${env.TEST_OAUTH_URL}/authorize`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: "code",
      client_id: clientId,
      redirect_uri: CALLBACK,
      code_challenge_method: "S256",
      scope: "read write",
    });
    expect(url.searchParams.get("state")!.length).toBeGreaterThanOrEqual(40);
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const pending = await getConnection(person.key, started.connection_id);
    expect(pending).toMatchObject({ platform: "oauth2", status: "pending", auth_mode: "oauth2", oauth: { scopes: [], expires_at: null, refreshed_at: null } });
    expect(pending.error_message).toContain("waiting for authorization");
    // Waiting for authorization: a call fails at once, reaching nobody.
    const early = await apiCall(person.key);
    expect(early).toMatchObject({ success: false, retryable: false });
    expect((await providerStats(clientId)).api_calls).toBe(0);

    const landed = await person.browser.request(await authorizeAt(started.authorize_url));
    expect(landed.status).toBe(200);
    expect(await landed.text()).toContain("is connected");
    const active = await getConnection(person.key, started.connection_id);
    expect(active).toMatchObject({ status: "active", error_message: null, oauth: { scopes: ["read", "write"], refreshed_at: null } });
    expect(new Date(active.oauth.expires_at).getTime()).toBeGreaterThan(Date.now() + 3000_000);
    const stats = await providerStats(clientId);
    expect(stats).toMatchObject({ code_exchanges: 1, token_auth: ["client_secret_post"] });

    const result = await apiCall(person.key, "/me");
    expect(result, JSON.stringify(result)).toMatchObject({ success: true, result: { body: { ok: true, client_id: clientId, path: "/api/me" } } });
    expect((await providerStats(clientId)).api_calls).toBe(1);
  });

  it("never shows a token or the client secret, and keeps them encrypted", async () => {
    const person = await signedInPerson();
    const clientId = newClientId();
    await providerSettings(clientId, { access_ttl: 30 });
    const id = await connectOAuth2(person, clientId);
    // A refresh too, so a rotated pair has been stored as well.
    expect((await apiCall(person.key)).success).toBe(true);
    const { issued } = await providerStats(clientId);
    expect(issued.length).toBeGreaterThanOrEqual(4);
    const shown = [
      await (await call(`/v1/connections/${id}`, { token: person.key })).text(),
      await (await call("/v1/connections", { token: person.key })).text(),
      await (await call(`/v1/connections/${id}/reconnect`, { token: person.key, json: {} })).text(),
      await (await person.browser.request(`/app/connections/${id}`)).text(),
      await (await person.browser.request("/app/connections")).text(),
      await (await call("/v1/audit-logs", { token: person.key })).text(),
    ];
    for (const text of shown) {
      for (const secret of [...issued, CLIENT_SECRET]) expect(text).not.toContain(secret);
    }
    const row = await env.DB.prepare("SELECT config, oauth_tokens FROM connections WHERE id = ?").bind(id).first<{ config: string; oauth_tokens: string }>();
    for (const secret of [...issued, CLIENT_SECRET]) expect(`${row!.config} ${row!.oauth_tokens}`).not.toContain(secret);
    expect(row!.oauth_tokens).toMatch(/^v1\.k1\./);
    const listed = (await json(await call("/v1/connections", { token: person.key }))).data[0];
    expect(listed.config.client_secret).toBe("••••6789");
  });

  it("refreshes a token that runs out within a minute before the call, storing the rotated refresh token", async () => {
    const person = await signedInPerson();
    const clientId = newClientId();
    // Tokens that live 30 s: always within the minute, so every call refreshes first.
    await providerSettings(clientId, { access_ttl: 30 });
    const id = await connectOAuth2(person, clientId);

    expect((await apiCall(person.key)).success).toBe(true);
    let stats = await providerStats(clientId);
    expect(stats).toMatchObject({ refreshes: 1, api_refused: 0, api_calls: 1, reused_refresh_tokens: 0 });
    const refreshed = await getConnection(person.key, id);
    expect(refreshed.oauth.refreshed_at).not.toBeNull();

    // The next refresh sends the rotated token: the first one is never sent again.
    expect((await apiCall(person.key)).success).toBe(true);
    stats = await providerStats(clientId);
    expect(stats).toMatchObject({ refreshes: 2, reused_refresh_tokens: 0, api_refused: 0, api_calls: 2 });
  });

  it("refreshes once and retries once when the platform answers 401", async () => {
    const person = await signedInPerson();
    const clientId = newClientId();
    const id = await connectOAuth2(person, clientId);
    // The provider ends the token early; the hub still thinks it has an hour.
    await expireAtProvider(clientId);
    const result = await apiCall(person.key);
    expect(result, JSON.stringify(result)).toMatchObject({ success: true });
    expect(await providerStats(clientId)).toMatchObject({ api_refused: 1, refreshes: 1, api_calls: 1, reused_refresh_tokens: 0 });
    expect((await getConnection(person.key, id)).status).toBe("active");

    // A platform that refuses the fresh token too: one refresh and one retry, no more.
    await providerSettings(clientId, { access_ttl: 0 });
    await expireAtProvider(clientId);
    const refused = await apiCall(person.key);
    expect(refused).toMatchObject({ success: false, error_status: 401, retryable: false });
    expect(refused.error_message).toContain("answered 401");
    expect(await providerStats(clientId)).toMatchObject({ api_refused: 3, refreshes: 2, reused_refresh_tokens: 0 });
  });

  it("makes exactly one refresh for 20 concurrent calls right after expiry", async () => {
    const person = await signedInPerson();
    const clientId = newClientId();
    const id = await connectOAuth2(person, clientId);
    // A slow token endpoint, so the calls are all waiting while the refresh is under way.
    await providerSettings(clientId, { refresh_delay_ms: 300 });
    await expireAtProvider(clientId);
    await expireInHub(id);
    const results = await Promise.all(Array.from({ length: 20 }, () => apiCall(person.key)));
    expect(results.filter((r) => !r.success).map((r) => r.error_message)).toEqual([]);
    const stats = await providerStats(clientId);
    expect(stats.refreshes).toBe(1);
    expect(stats.reused_refresh_tokens).toBe(0);
    expect(stats.api_refused).toBe(0);
    expect(stats.api_calls).toBe(20);
    expect(new Set(stats.access_tokens_seen).size).toBe(1);
  });

  it("marks the connection expired when the refresh is refused, and fails the next call at once", async () => {
    const person = await signedInPerson();
    const clientId = newClientId();
    const id = await connectOAuth2(person, clientId);
    await providerSettings(clientId, { refresh_error: "invalid_grant" });
    await expireInHub(id);
    const refused = await apiCall(person.key);
    expect(refused).toMatchObject({ success: false, error_status: 401, retryable: false });
    expect(refused.error_message).toContain("invalid_grant");
    expect(refused.error_message).toContain(`/v1/connections/${id}/reconnect`);
    const expired = await getConnection(person.key, id);
    expect(expired).toMatchObject({ status: "expired", error_message: refused.error_message });

    const before = await providerStats(clientId);
    const again = await apiCall(person.key);
    expect(again).toMatchObject({ success: false, error_message: refused.error_message, retryable: false });
    const after = await providerStats(clientId);
    expect(after.refreshes).toBe(before.refreshes);
    expect(after.api_calls + after.api_refused).toBe(before.api_calls + before.api_refused);

    // Reconnecting keeps the id and brings it back.
    await providerSettings(clientId, { refresh_error: null });
    const reconnect = await call(`/v1/connections/${id}/reconnect`, { token: person.key, json: {} });
    expect(reconnect.status).toBe(200);
    const { authorize_url, expires_at } = await json(reconnect);
    expect(expires_at).toBeTruthy();
    expect(new URL(authorize_url).searchParams.get("scope")).toBe("read write");
    expect((await person.browser.request(await authorizeAt(authorize_url))).status).toBe(200);
    expect(await getConnection(person.key, id)).toMatchObject({ connection_id: id, status: "active", error_message: null });
    expect(await apiCall(person.key)).toMatchObject({ success: true });
    const listed = (await json(await call("/v1/connections", { token: person.key }))).data;
    expect(listed).toHaveLength(1);
  });

  it("refuses a reused, expired, unknown or someone else's state, changing nothing", async () => {
    const person = await signedInPerson();
    const clientId = newClientId();
    const started = await startOAuth(person.key, { platform: "oauth2", name: "Fake API", config: oauth2Config(clientId) });
    const callback = await authorizeAt(started.authorize_url);

    // Another person's browser: refused, and the state is still there for its owner.
    const stranger = await signedInPerson();
    const theirs = await stranger.browser.request(callback);
    expect(theirs.status).toBe(403);
    expect(await theirs.text()).toContain("started by someone else");
    // Nobody signed in: asked to sign in, nothing used.
    const anonymous = await new Browser().request(callback);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toContain("Sign in");
    expect((await getConnection(person.key, started.connection_id)).status).toBe("pending");
    expect((await providerStats(clientId)).code_exchanges).toBe(0);

    expect((await person.browser.request(callback)).status).toBe(200);
    const reused = await person.browser.request(callback);
    expect(reused.status).toBe(400);
    expect(await reused.text()).toContain("unknown or was already used");
    expect((await providerStats(clientId)).code_exchanges).toBe(1);

    // An expired state.
    const late = await startOAuth(person.key, { platform: "oauth2", name: "Late", config: oauth2Config(clientId) });
    const lateCallback = await authorizeAt(late.authorize_url);
    await env.DB.prepare("UPDATE oauth_authorizations SET expires_at = ? WHERE connection_id = ?")
      .bind(Date.now() - 1000, late.connection_id)
      .run();
    const tooLate = await person.browser.request(lateCallback);
    expect(tooLate.status).toBe(400);
    expect(await tooLate.text()).toContain("expired");
    expect((await getConnection(person.key, late.connection_id)).status).toBe("pending");

    const unknown = await person.browser.request("/connections/oauth/callback?code=abc&state=not-a-state-we-gave");
    expect(unknown.status).toBe(400);
    expect((await providerStats(clientId)).code_exchanges).toBe(1);
  });

  it("checks an `iss` sent back against the provider's endpoints when no issuer is known (RFC 9207 mix-up)", async () => {
    const person = await signedInPerson();
    const clientId = newClientId();
    // Another server's issuer in the answer: refused before any code is exchanged.
    const mixed = await startOAuth(person.key, { platform: "oauth2", name: "Mixed", config: oauth2Config(clientId) });
    const mixedBack = await person.browser.request(`${await authorizeAt(mixed.authorize_url)}&iss=${encodeURIComponent("https://attacker.example")}`);
    expect(mixedBack.status).toBeGreaterThanOrEqual(400);
    expect((await getConnection(person.key, mixed.connection_id)).status).not.toBe("active");
    expect((await providerStats(clientId)).code_exchanges).toBe(0);
    // The provider's own origin as its issuer: taken.
    const own = await startOAuth(person.key, { platform: "oauth2", name: "Own", config: oauth2Config(clientId) });
    const ownBack = await person.browser.request(`${await authorizeAt(own.authorize_url)}&iss=${encodeURIComponent(env.TEST_OAUTH_URL)}`);
    expect(ownBack.status).toBe(200);
    expect((await getConnection(person.key, own.connection_id)).status).toBe("active");
    expect((await providerStats(clientId)).code_exchanges).toBe(1);
  });

  it("returns only to a page of the hub, and records a refusal at the provider as the connection's error", async () => {
    const person = await signedInPerson();
    const clientId = newClientId();
    for (const elsewhere of ["https://evil.example/after", "//evil.example/after", "javascript:alert(1)"]) {
      const refused = await call("/v1/connections/oauth/start", {
        token: person.key,
        json: { platform: "oauth2", name: "Fake", config: oauth2Config(clientId), return_to: elsewhere },
      });
      const problem = await expectProblem(refused, 422, "validation_failed");
      expect(problem.errors?.map((e) => e.field)).toEqual(["return_to"]);
    }
    expect((await json(await call("/v1/connections", { token: person.key }))).data).toEqual([]);

    const started = await startOAuth(person.key, {
      platform: "oauth2",
      name: "Fake",
      config: oauth2Config(clientId),
      return_to: `${ORIGIN}/app/connections?from=oauth`,
    });
    const back = await person.browser.request(await authorizeAt(started.authorize_url));
    expect(back.status).toBe(303);
    expect(back.headers.get("Location")).toBe("/app/connections?from=oauth");

    await providerSettings(clientId, { deny: true });
    const denied = await startOAuth(person.key, { platform: "oauth2", name: "Denied", config: oauth2Config(clientId) });
    const page = await person.browser.request(await authorizeAt(denied.authorize_url));
    expect(page.status).toBe(400);
    expect(await page.text()).toContain("access_denied");
    const connection = await getConnection(person.key, denied.connection_id);
    expect(connection.status).toBe("error");
    expect(connection.error_message).toContain("access_denied");
    expect(connection.error_message).toContain("The user said no");
  });

  it("checks what a start needs: an OAuth platform, a client, no secret sent to an endpoint of the caller's", async () => {
    const { key } = await signedInPerson();
    const notOAuth = await call("/v1/connections/oauth/start", { token: key, json: { platform: "discord", name: "x", config: {} } });
    await expectProblem(notOAuth, 422, "validation_failed");
    // No deployment app for Google here: the person must bring one.
    const google = await expectProblem(
      await call("/v1/connections/oauth/start", { token: key, json: { platform: "google", name: "G" } }),
      422,
      "validation_failed",
    );
    expect(google.errors?.[0]?.message).toContain("OAUTH_GOOGLE_CLIENT_ID");
    // Endpoints of one's own need a client of one's own.
    const moved = await expectProblem(
      await call("/v1/connections/oauth/start", { token: key, json: { platform: "google", name: "G", config: { token_url: `${env.TEST_OAUTH_URL}/token` } } }),
      422,
      "validation_failed",
    );
    expect(moved.errors?.map((e) => e.field)).toEqual(["config.client_id"]);
    // OAuth-only platforms are not created with pasted credentials.
    await expectProblem(await call("/v1/connections", { token: key, json: { platform: "google", name: "G", config: {} } }), 422, "validation_failed");
    // A connection with a pasted token is edited, not reconnected.
    const slack = await json(
      await call("/v1/connections", { token: key, json: { platform: "slack", name: "S", config: { bot_token: "xoxb-pasted-token-1234" } } }),
    );
    await expectProblem(await call(`/v1/connections/${slack.connection_id}/reconnect`, { token: key, json: {} }), 409, "conflict");
    expect(slack).toMatchObject({ auth_mode: "config", oauth: null, status: "active" });
  });

  it("keeps another user's connection out of reach", async () => {
    const person = await signedInPerson();
    const id = await connectOAuth2(person, newClientId());
    const stranger = await signedInPerson();
    await expectProblem(await call(`/v1/connections/${id}`, { token: stranger.key }), 404, "not_found");
    await expectProblem(await call(`/v1/connections/${id}/reconnect`, { token: stranger.key, json: {} }), 404, "not_found");
  });
});

describe("native OAuth platforms", () => {
  it("connects Slack with OAuth (its bot token, comma-separated scopes), beside pasted tokens", async () => {
    const person = await signedInPerson();
    const clientId = newClientId();
    await providerSettings(clientId, { style: "slack" });
    const started = await startOAuth(person.key, {
      platform: "slack",
      name: "Workspace",
      config: {
        authorize_url: `${env.TEST_OAUTH_URL}/authorize`,
        token_url: `${env.TEST_OAUTH_URL}/token`,
        client_id: clientId,
        client_secret: CLIENT_SECRET,
        base_url: `${env.TEST_OAUTH_URL}/api`,
        default_channel: "#general",
      },
    });
    expect(new URL(started.authorize_url).searchParams.get("scope")).toBe("chat:write,channels:read");
    expect((await person.browser.request(await authorizeAt(started.authorize_url))).status).toBe(200);
    const connection = await getConnection(person.key, started.connection_id);
    expect(connection).toMatchObject({ status: "active", auth_mode: "oauth2", oauth: { scopes: ["chat:write", "channels:read"] } });
    expect(connection.config).not.toHaveProperty("bot_token");

    const sent = await json(await call("/v1/tools/execute", { token: person.key, json: { name: "slack_send_message", arguments: { text: "hello" } } }));
    expect(sent, JSON.stringify(sent)).toMatchObject({ success: true, result: { channel: "#general" } });
    expect((await providerStats(clientId)).access_tokens_seen).toHaveLength(1);

    // Slack's refusal of a token comes with status 200: it still refreshes once and retries.
    await expireAtProvider(clientId);
    const again = await json(await call("/v1/tools/execute", { token: person.key, json: { name: "slack_send_message", arguments: { text: "again" } } }));
    expect(again, JSON.stringify(again)).toMatchObject({ success: true });
    expect(await providerStats(clientId)).toMatchObject({ refreshes: 1, api_refused: 1, reused_refresh_tokens: 0 });

    // Editing the OAuth connection's settings keeps its tokens.
    const edited = await call(`/v1/connections/${started.connection_id}`, {
      method: "PUT",
      token: person.key,
      json: { name: "Renamed", status: "active", config: { ...connection.config, default_channel: "#sales" } },
    });
    expect(edited.status, await edited.clone().text()).toBe(200);
    expect(await json(edited)).toMatchObject({ status: "active", config: { default_channel: "#sales" } });
    const moved = await json(
      await call(`/v1/connections/${started.connection_id}`, {
        method: "PUT",
        token: person.key,
        json: {
          name: "Renamed",
          status: "active",
          config: { ...connection.config, client_secret: "a-new-secret-1234", base_url: "https://elsewhere.example/api" },
        },
      }),
    );
    // Tokens never follow a moved base URL: dropped, and the person reconnects.
    expect(moved).toMatchObject({ status: "expired" });
    expect(moved.error_message).toContain("reconnect");
  });

  it("connects Google (a test call and a tool on its token)", async () => {
    const person = await signedInPerson();
    const clientId = newClientId();
    const started = await startOAuth(person.key, {
      platform: "google",
      name: "My Google",
      config: {
        authorize_url: `${env.TEST_OAUTH_URL}/authorize`,
        token_url: `${env.TEST_OAUTH_URL}/token`,
        client_id: clientId,
        client_secret: CLIENT_SECRET,
        base_url: env.TEST_OAUTH_URL,
      },
    });
    const url = new URL(started.authorize_url);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      access_type: "offline",
      prompt: "consent",
      scope: "https://www.googleapis.com/auth/userinfo.email",
    });
    expect((await person.browser.request(await authorizeAt(started.authorize_url))).status).toBe(200);
    const account = await json(await call("/v1/tools/execute", { token: person.key, json: { name: "google_get_account", arguments: {} } }));
    expect(account, JSON.stringify(account)).toMatchObject({ success: true, result: { email: "person@example.com" } });

    // The dashboard's Test runs the platform's test call with the token.
    const csrf = await person.browser.csrf(`/app/connections/${started.connection_id}`);
    const tested = await person.browser.request(`/app/connections/${started.connection_id}`, { form: { step: "test", csrf_token: csrf } });
    expect(await tested.text()).toContain("Connected as person@example.com");
  });

  it("asks HubSpot for its CRM scopes with the deployment's or the connection's own app", async () => {
    const { key } = await signedInPerson();
    const clientId = newClientId();
    const started = await startOAuth(key, {
      platform: "hubspot",
      name: "CRM",
      config: { authorize_url: `${env.TEST_OAUTH_URL}/authorize`, token_url: `${env.TEST_OAUTH_URL}/token`, client_id: clientId, client_secret: CLIENT_SECRET },
      scopes: ["crm.objects.contacts.read"],
    });
    expect(Object.fromEntries(new URL(started.authorize_url).searchParams)).toMatchObject({ client_id: clientId, scope: "crm.objects.contacts.read" });
    const platforms = (await json(await call("/v1/connections/platforms", { token: key }))).data;
    expect(platforms.find((p: any) => p.id === "google")).toMatchObject({ auth_kind: "oauth2", secret_fields: ["client_secret"] });
    expect(platforms.find((p: any) => p.id === "oauth2")).toMatchObject({ auth_kind: "oauth2" });
    // Pasted tokens keep working as they were.
    expect(platforms.find((p: any) => p.id === "slack")).toMatchObject({ secret_fields: ["bot_token", "signing_secret"] });
  });
});

describe("the dashboard's Connect with", () => {
  it("offers Connect with for OAuth platforms, goes on to the provider and comes back to the connections page", async () => {
    const browser = new Browser();
    await browser.register(newEmail());
    const form = await (await browser.request("/app/connections/new?platform=oauth2")).text();
    expect(form).toContain("Connect with OAuth 2.0 API");
    expect(form).not.toContain('value="test"');
    const slackForm = await (await browser.request("/app/connections/new?platform=slack")).text();
    expect(slackForm).toContain("Connect with Slack");
    expect(slackForm).toContain('value="test"');

    const clientId = newClientId();
    const csrf = await browser.csrf("/app/connections/new?platform=oauth2");
    const config = oauth2Config(clientId);
    const posted = await browser.request("/app/connections/connect", {
      form: {
        csrf_token: csrf,
        platform: "oauth2",
        name: "From the dashboard",
        "config.authorize_url": config.authorize_url,
        "config.token_url": config.token_url,
        "config.client_id": config.client_id,
        "config.client_secret": config.client_secret,
        "config.base_url": config.base_url,
        "config.scopes": "read\nwrite",
      },
    });
    expect(posted.status, await posted.clone().text()).toBe(303);
    const authorizeUrl = posted.headers.get("Location")!;
    expect(authorizeUrl.startsWith(`${env.TEST_OAUTH_URL}/authorize?`)).toBe(true);
    const back = await browser.request(await authorizeAt(authorizeUrl));
    expect(back.status).toBe(303);
    expect(back.headers.get("Location")).toBe("/app/connections");
    const list = await (await browser.request("/app/connections")).text();
    expect(list).toContain("From the dashboard");
    expect(list).toContain("Active");

    // Without the CSRF token nothing starts.
    const forged = await browser.request("/app/connections/connect", { form: { platform: "oauth2", name: "Forged" } });
    expect(forged.status).toBe(403);

    // Reconnect, from the connection's page: on to the provider again, back to that page, same id.
    const key = await browser.apiKey();
    const [connection] = (await json(await call("/v1/connections", { token: key }))).data;
    const page = await browser.request(`/app/connections/${connection.connection_id}`);
    // The page's forms may lead to a provider's consent page.
    expect(page.headers.get("Content-Security-Policy")).toContain("form-action 'self' https:");
    const html = await page.text();
    expect(html).toContain(`aria-label="Reconnect From the dashboard"`);
    expect(html).toContain("read, write");
    const again = await browser.request(`/app/connections/${connection.connection_id}`, {
      form: { step: "reconnect", csrf_token: await browser.csrf(`/app/connections/${connection.connection_id}`) },
    });
    expect(again.status).toBe(303);
    const returned = await browser.request(await authorizeAt(again.headers.get("Location")!));
    expect(returned.headers.get("Location")).toBe(`/app/connections/${connection.connection_id}`);
    expect((await providerStats(clientId)).code_exchanges).toBe(2);
  });

  it("saves an MCP server behind OAuth by going on to its authorization", async () => {
    const browser = new Browser();
    await browser.register(newEmail());
    const csrf = await browser.csrf("/app/connections/new?platform=mcp");
    const saved = await browser.request("/app/connections/new", {
      form: { csrf_token: csrf, platform: "mcp", step: "save", name: "Protected", "config.url": env.TEST_MCP_OAUTH_URL, "config.transport": "auto" },
    });
    expect(saved.status).toBe(303);
    const authorizeUrl = new URL(saved.headers.get("Location")!);
    expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(`${new URL(env.TEST_MCP_OAUTH_URL).origin}/authorize`);
    expect((await browser.request("/app/connections")).status).toBe(200);
    expect(await (await browser.request("/app/connections")).text()).toContain("Waiting for authorization");
  });
});
