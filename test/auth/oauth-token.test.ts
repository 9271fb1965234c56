import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApp, newUser } from "../helpers/api";
import { obtainCode, pkcePair } from "../helpers/authorize";

const REDIRECT = "https://app.example/callback";

async function token(form: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await call("/v1/auth/token", { form, headers });
  return { status: response.status, headers: response.headers, body: await json(response) };
}

describe("client_credentials", () => {
  it("issues a token that acts for the app's owner within the app's scopes", async () => {
    const owner = await newUser();
    const app = await newApp(owner, { scopes: ["data:read", "workflow:execute"] });
    const result = await token({ grant_type: "client_credentials", client_id: app.client_id, client_secret: app.client_secret, scope: "data:read" });
    expect(result.status).toBe(200);
    expect(result.headers.get("Cache-Control")).toBe("no-store");
    expect(result.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "data:read" });
    expect(result.body.refresh_token).toBeUndefined();

    const me = await call("/v1/me", { token: result.body.access_token });
    expect(await json(me)).toMatchObject({ id: owner.id, credential: { kind: "oauth", client_id: app.client_id, scopes: ["data:read"] } });
    // data:write was never granted to the app.
    await expectProblem(await call("/v1/me", { method: "PATCH", token: result.body.access_token, json: { name: "x" } }), 403, "insufficient_scope");
  });

  it("accepts HTTP Basic client authentication and defaults to all granted scopes", async () => {
    const app = await newApp(await newUser());
    const basic = btoa(`${encodeURIComponent(app.client_id)}:${encodeURIComponent(app.client_secret)}`);
    const result = await token({ grant_type: "client_credentials" }, { Authorization: `Basic ${basic}` });
    expect(result.status).toBe(200);
    expect(result.body.scope).toBe("data:read workflow:execute");
  });

  it("refuses a wrong secret (401 invalid_client), an ungranted scope and unknown grant types", async () => {
    const app = await newApp(await newUser());
    const wrong = await token({ grant_type: "client_credentials", client_id: app.client_id, client_secret: "ahs_wrong" });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: "invalid_client", error_description: expect.any(String) });
    expect(wrong.headers.get("WWW-Authenticate")).toContain("Basic");

    const scope = await token({ grant_type: "client_credentials", client_id: app.client_id, client_secret: app.client_secret, scope: "connections:write" });
    expect(scope).toMatchObject({ status: 400, body: { error: "invalid_scope" } });

    expect(await token({ grant_type: "password", username: "a", password: "b" })).toMatchObject({ status: 400, body: { error: "unsupported_grant_type" } });
    expect(await token({})).toMatchObject({ status: 400, body: { error: "invalid_request" } });
  });

  it("requires a form-encoded body", async () => {
    const response = await call("/v1/auth/token", { json: { grant_type: "client_credentials" } });
    expect(response.status).toBe(400);
    expect(await json(response)).toMatchObject({ error: "invalid_request" });
  });

  it("stops every token of an app once the app is deleted", async () => {
    const owner = await newUser();
    const app = await newApp(owner);
    const issued = await token({ grant_type: "client_credentials", client_id: app.client_id, client_secret: app.client_secret });
    expect((await call("/v1/me", { token: issued.body.access_token })).status).toBe(200);
    expect((await call(`/v1/auth/apps/${app.client_id}`, { method: "DELETE", token: owner.accessToken })).status).toBe(204);
    await expectProblem(await call("/v1/me", { token: issued.body.access_token }), 401, "unauthorized");
    expect((await token({ grant_type: "client_credentials", client_id: app.client_id, client_secret: app.client_secret })).status).toBe(401);
  });
});

describe("authorization_code", () => {
  it("exchanges a code with its PKCE verifier for working, rotating tokens", async () => {
    const user = await newUser();
    const app = await newApp(await newUser());
    const { verifier, challenge } = await pkcePair();
    const code = await obtainCode(user, {
      client_id: app.client_id,
      redirect_uri: REDIRECT,
      scope: "data:read",
      state: "s1",
      code_challenge: challenge,
      code_challenge_method: "S256",
    });
    const result = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: app.client_id,
      client_secret: app.client_secret,
      code_verifier: verifier,
    });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ token_type: "Bearer", scope: "data:read", refresh_token: expect.stringMatching(/^ahr_/) });
    expect(await json(await call("/v1/me", { token: result.body.access_token }))).toMatchObject({ id: user.id, credential: { kind: "oauth" } });

    const refreshed = await token({
      grant_type: "refresh_token",
      refresh_token: result.body.refresh_token,
      client_id: app.client_id,
      client_secret: app.client_secret,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(result.body.refresh_token);
    expect((await call("/v1/me", { token: refreshed.body.access_token })).status).toBe(200);
  });

  it("refuses a wrong PKCE verifier, a missing verifier and a mismatched redirect_uri", async () => {
    const user = await newUser();
    const app = await newApp(await newUser(), { redirect_uris: [REDIRECT, "https://app.example/other"] });
    const { challenge } = await pkcePair();
    const { verifier: wrongVerifier } = await pkcePair();
    const code = await obtainCode(user, { client_id: app.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256" });
    const base = { grant_type: "authorization_code", code, client_id: app.client_id, client_secret: app.client_secret };
    expect(await token({ ...base, redirect_uri: REDIRECT, code_verifier: wrongVerifier })).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(await token({ ...base, redirect_uri: REDIRECT })).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(await token({ ...base, redirect_uri: "https://app.example/other", code_verifier: wrongVerifier })).toMatchObject({
      status: 400,
      body: { error: "invalid_grant" },
    });
  });

  it("refuses a code presented by another client", async () => {
    const user = await newUser();
    const app = await newApp(await newUser());
    const other = await newApp(await newUser());
    const code = await obtainCode(user, { client_id: app.client_id, redirect_uri: REDIRECT });
    const stolen = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: other.client_id,
      client_secret: other.client_secret,
    });
    expect(stolen).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });

  it("refuses a reused code and revokes the tokens issued from it", async () => {
    const user = await newUser();
    const app = await newApp(await newUser());
    const code = await obtainCode(user, { client_id: app.client_id, redirect_uri: REDIRECT });
    const form = { grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: app.client_id, client_secret: app.client_secret };
    const first = await token(form);
    expect(first.status).toBe(200);
    const second = await token(form);
    expect(second).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    await expectProblem(await call("/v1/me", { token: first.body.access_token }), 401, "unauthorized");
    const refresh = await token({
      grant_type: "refresh_token",
      refresh_token: first.body.refresh_token,
      client_id: app.client_id,
      client_secret: app.client_secret,
    });
    expect(refresh).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });

  it("refuses an expired code", async () => {
    const user = await newUser();
    const app = await newApp(await newUser());
    const code = await obtainCode(user, { client_id: app.client_id, redirect_uri: REDIRECT });
    const { env } = await import("cloudflare:workers");
    await env.DB.prepare("UPDATE authorization_codes SET expires_at = ? WHERE client_id = ?")
      .bind(Date.now() - 1000, app.client_id)
      .run();
    const result = await token({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: app.client_id, client_secret: app.client_secret });
    expect(result).toMatchObject({ status: 400, body: { error: "invalid_grant", error_description: expect.stringContaining("expired") } });
  });
});

describe("refresh_token", () => {
  it("rotates login refresh tokens and refuses a reused one, revoking the session", async () => {
    const user = await newUser();
    const first = await token({ grant_type: "refresh_token", refresh_token: user.refreshToken });
    expect(first.status).toBe(200);
    expect(first.body.refresh_token).toMatch(/^ahr_/);

    // A retry within seconds (two tabs, a timeout) is refused but does not end the session…
    const retry = await token({ grant_type: "refresh_token", refresh_token: user.refreshToken });
    expect(retry).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect((await call("/v1/me", { token: first.body.access_token })).status).toBe(200);

    // …a replay later looks like theft and does.
    const { env } = await import("cloudflare:workers");
    await env.DB.prepare("UPDATE refresh_tokens SET used_at = ? WHERE used_at IS NOT NULL AND grant_id IN (SELECT id FROM grants WHERE user_id = ?)")
      .bind(Date.now() - 60_000, user.id)
      .run();
    const replay = await token({ grant_type: "refresh_token", refresh_token: user.refreshToken });
    expect(replay).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    // The reuse looks like theft, so the rotated token and its access token die too.
    expect(await token({ grant_type: "refresh_token", refresh_token: first.body.refresh_token })).toMatchObject({ status: 400 });
    await expectProblem(await call("/v1/me", { token: first.body.access_token }), 401, "unauthorized");
  });

  it("does not let an unauthenticated caller spend an app's refresh token", async () => {
    const user = await newUser();
    const app = await newApp(await newUser());
    const code = await obtainCode(user, { client_id: app.client_id, redirect_uri: REDIRECT });
    const issued = await token({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: app.client_id, client_secret: app.client_secret });
    expect(await token({ grant_type: "refresh_token", refresh_token: issued.body.refresh_token })).toMatchObject({
      status: 400,
      body: { error: "invalid_grant" },
    });
    // Still good for its rightful client.
    const rightful = await token({
      grant_type: "refresh_token",
      refresh_token: issued.body.refresh_token,
      client_id: app.client_id,
      client_secret: app.client_secret,
    });
    expect(rightful.status).toBe(200);
  });

  it("can narrow but not widen the scope", async () => {
    const user = await newUser();
    const narrowed = await token({ grant_type: "refresh_token", refresh_token: user.refreshToken, scope: "data:read" });
    expect(narrowed.body.scope).toBe("data:read");
    const app = await newApp(await newUser(), { scopes: ["data:read"] });
    const code = await obtainCode(user, { client_id: app.client_id, redirect_uri: REDIRECT });
    const issued = await token({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: app.client_id, client_secret: app.client_secret });
    const widened = await token({
      grant_type: "refresh_token",
      refresh_token: issued.body.refresh_token,
      client_id: app.client_id,
      client_secret: app.client_secret,
      scope: "data:read data:write",
    });
    expect(widened).toMatchObject({ status: 400, body: { error: "invalid_scope" } });
  });
});

describe("token endpoint limits", () => {
  it("stops an address that keeps failing client authentication, with an RFC-shaped 429", async () => {
    const app = await newApp(await newUser());
    const headers = { "CF-Connecting-IP": "203.0.113.90" };
    let result = await token({ grant_type: "client_credentials", client_id: app.client_id, client_secret: "wrong" }, headers);
    for (let i = 0; i < 100 && result.status !== 429; i++) {
      result = await token({ grant_type: "client_credentials", client_id: app.client_id, client_secret: "wrong" }, headers);
    }
    expect(result.status).toBe(429);
    expect(result.body).toMatchObject({ error: "slow_down" });
    expect(Number(result.headers.get("Retry-After"))).toBeGreaterThan(0);
    // Even the right secret waits now, from that address; another address is unaffected.
    expect((await token({ grant_type: "client_credentials", client_id: app.client_id, client_secret: app.client_secret }, headers)).status).toBe(429);
    expect((await token({ grant_type: "client_credentials", client_id: app.client_id, client_secret: app.client_secret })).status).toBe(200);
  });

  it("gives an authenticated client its own budget, beyond the per-address sign-in limit", async () => {
    const app = await newApp(await newUser());
    const headers = { "CF-Connecting-IP": "203.0.113.91" };
    for (let i = 0; i < 40; i++) {
      const result = await token({ grant_type: "client_credentials", client_id: app.client_id, client_secret: app.client_secret }, headers);
      expect(result.status).toBe(200);
    }
  });
});

describe("discovery", () => {
  it("publishes RFC 8414 metadata whose endpoints are the ones that work", async () => {
    const response = await call("/.well-known/oauth-authorization-server");
    expect(response.status).toBe(200);
    const metadata = await json(response);
    expect(metadata).toMatchObject({
      issuer: "http://hub.test",
      authorization_endpoint: "http://hub.test/auth/authorize",
      token_endpoint: "http://hub.test/v1/auth/token",
      code_challenge_methods_supported: ["S256"],
      grant_types_supported: expect.arrayContaining(["authorization_code", "client_credentials", "refresh_token"]),
      scopes_supported: ["data:read", "data:write", "workflow:execute", "connections:write"],
    });
    const app = await newApp(await newUser());
    const tokenPath = new URL(metadata.token_endpoint).pathname;
    const issued = await call(tokenPath, { form: { grant_type: "client_credentials", client_id: app.client_id, client_secret: app.client_secret } });
    expect(issued.status).toBe(200);
  });
});
