import { SignJWT, UnsecuredJWT } from "jose";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApiKey } from "../../src/auth/api-keys";
import { contextForPrincipal, personalWorkspace, runtimeFor } from "../../src/core/context";
import { call, expectProblem, json, newApiKey, newApp, newUser } from "../helpers/api";

const secret = () => new TextEncoder().encode(env.JWT_SECRET!);

async function forge(claims: Record<string, unknown>, options: { key?: Uint8Array; typ?: string; aud?: string; exp?: number } = {}) {
  return new SignJWT({ scope: "data:read", ...claims })
    .setProtectedHeader({ alg: "HS256", typ: options.typ ?? "at+jwt" })
    .setIssuer("agent-automation-hub")
    .setAudience(options.aud ?? "agent-automation-hub/v1")
    .setJti(crypto.randomUUID())
    .setIssuedAt()
    .setExpirationTime(options.exp ?? Math.floor(Date.now() / 1000) + 600)
    .sign(options.key ?? secret());
}

function gidOf(accessToken: string): string {
  return JSON.parse(atob(accessToken.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))).gid;
}

describe("bearer tokens", () => {
  it("asks for a credential when none is sent, per RFC 6750", async () => {
    const response = await call("/v1/me");
    await expectProblem(response, 401, "unauthorized");
    expect(response.headers.get("WWW-Authenticate")).toBe('Bearer realm="agent-automation-hub"');
  });

  it("refuses expired, forged, alg:none and wrong-audience tokens", async () => {
    const user = await newUser();
    const gid = gidOf(user.accessToken);
    const sub = String(user.id);
    // Sanity check: a token made the same way with the right key, audience and expiry works.
    expect((await call("/v1/me", { token: await forge({ sub, gid }) })).status).toBe(200);

    const expired = await call("/v1/me", { token: await forge({ sub, gid }, { exp: Math.floor(Date.now() / 1000) - 10 }) });
    const body = await expectProblem(expired, 401, "unauthorized");
    expect(body.detail).toMatch(/expired/);
    expect(expired.headers.get("WWW-Authenticate")).toMatch(/error="invalid_token"/);

    const forged = await forge({ sub, gid }, { key: new TextEncoder().encode("an-attacker-chosen-secret-of-32-chars!!") });
    await expectProblem(await call("/v1/me", { token: forged }), 401, "unauthorized");

    const none = new UnsecuredJWT({ sub, gid, scope: "data:read", jti: "x" })
      .setIssuer("agent-automation-hub")
      .setAudience("agent-automation-hub/v1")
      .setIssuedAt()
      .setExpirationTime("10m")
      .encode();
    await expectProblem(await call("/v1/me", { token: none }), 401, "unauthorized");

    await expectProblem(await call("/v1/me", { token: await forge({ sub, gid }, { aud: "someone-else" }) }), 401, "unauthorized");
    await expectProblem(await call("/v1/me", { token: await forge({ sub, gid }, { typ: "session+jwt" }) }), 401, "unauthorized");
    // A token claiming someone else's grant is refused even when correctly signed.
    await expectProblem(await call("/v1/me", { token: await forge({ sub: String(user.id + 1000), gid }) }), 401, "unauthorized");
  });

  it("never grants more than the grant holds, whatever the token's scope claim says", async () => {
    const owner = await newUser();
    const app = await newApp(owner, { scopes: ["data:read"] });
    const issued = await json(
      await call("/v1/auth/token", { form: { grant_type: "client_credentials", client_id: app.client_id, client_secret: app.client_secret } }),
    );
    // A correctly signed token that claims more than its grant (data:read only) is cut down to the grant.
    const inflated = await forge({ sub: String(owner.id), gid: gidOf(issued.access_token), scope: "data:read data:write" });
    expect((await json(await call("/v1/me", { token: inflated }))).credential.scopes).toEqual(["data:read"]);
    await expectProblem(await call("/v1/me", { method: "PATCH", token: inflated, json: { name: "n" } }), 403, "insufficient_scope");
  });
});

describe("API keys", () => {
  it("creates a key shown once, lists it by prefix only, and it authenticates", async () => {
    const user = await newUser();
    const created = await newApiKey(user, { name: "CI key" });
    expect(created.key).toMatch(/^ahk_test_[A-Za-z0-9_-]{43}$/);

    const list = await json(await call("/v1/auth/api-keys", { token: user.accessToken }));
    const entry = list.data.find((k: any) => k.id === created.id);
    expect(entry).toMatchObject({ name: "CI key", mode: "test", prefix: created.key.slice(0, 15), last_used_at: null });
    expect(JSON.stringify(list)).not.toContain(created.key);

    const me = await call("/v1/me", { token: created.key });
    expect(await json(me)).toMatchObject({ id: user.id, credential: { kind: "api_key" } });

    const { results } = await env.DB.prepare("SELECT key_hash FROM api_keys WHERE id = ?").bind(created.id).all();
    expect(JSON.stringify(results)).not.toContain(created.key);
  });

  it("stops a revoked key at once, and another user cannot revoke it", async () => {
    const user = await newUser();
    const stranger = await newUser();
    const { id, key } = await newApiKey(user);
    await expectProblem(await call(`/v1/auth/api-keys/${id}`, { method: "DELETE", token: stranger.accessToken }), 404, "not_found");
    expect((await call("/v1/me", { token: key })).status).toBe(200);
    expect((await call(`/v1/auth/api-keys/${id}`, { method: "DELETE", token: user.accessToken })).status).toBe(204);
    const body = await expectProblem(await call("/v1/me", { token: key }), 401, "unauthorized");
    expect(body.detail).toMatch(/revoked/);
  });

  it("refuses a production key on a sandbox deployment with a message that says so", async () => {
    const user = await newUser();
    // The API only mints keys of this deployment's mode; a live key comes from a production deployment.
    const runtime = runtimeFor(env);
    const production = { ...runtime, config: { ...runtime.config, environment: "production" as const } };
    const ctx = contextForPrincipal(
      production,
      { userId: user.id, scopes: ["data:read"], kind: "session", credentialId: "test", clientId: null, workspaceId: null },
      personalWorkspace(user.id),
    );
    const { secret: key } = await createApiKey(ctx, { name: "prod" });
    expect(key).toMatch(/^ahk_live_/);
    const body = await expectProblem(await call("/v1/me", { token: key }), 401, "unauthorized");
    expect(body.detail).toMatch(/production API key.*sandbox/);
  });

  it("refuses an expired key and a key with more scopes than its creator", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user, { expires_at: new Date(Date.now() + 1_500).toISOString() });
    expect((await call("/v1/me", { token: key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect((await expectProblem(await call("/v1/me", { token: key }), 401, "unauthorized")).detail).toMatch(/expired/);

    const readOnly = await newApiKey(user, { scopes: ["data:read", "data:write"] });
    await expectProblem(
      await call("/v1/auth/api-keys", { token: readOnly.key, json: { name: "escalate", scopes: ["connections:write"] } }),
      403,
      "insufficient_scope",
    );
  });

  it("paginates the key list with limit and cursor", async () => {
    const user = await newUser();
    const created = [];
    for (let i = 0; i < 5; i++) created.push(await newApiKey(user, { name: `key ${i}` }));
    const first = await json(await call("/v1/auth/api-keys?limit=2", { token: user.accessToken }));
    expect(first.data.map((k: any) => k.name)).toEqual(["key 4", "key 3"]);
    const second = await json(await call(`/v1/auth/api-keys?limit=2&cursor=${first.next_cursor}`, { token: user.accessToken }));
    expect(second.data.map((k: any) => k.name)).toEqual(["key 2", "key 1"]);
    const third = await json(await call(`/v1/auth/api-keys?limit=2&cursor=${second.next_cursor}`, { token: user.accessToken }));
    expect(third).toMatchObject({ data: [{ name: "key 0" }], next_cursor: null });
    await expectProblem(await call("/v1/auth/api-keys?cursor=garbage", { token: user.accessToken }), 422, "validation_failed");
  });

  it("does not let a token issued to an OAuth app manage keys or apps", async () => {
    const owner = await newUser();
    const app = await newApp(owner, { scopes: ["data:read", "data:write"] });
    const { access_token } = await json(
      await call("/v1/auth/token", { form: { grant_type: "client_credentials", client_id: app.client_id, client_secret: app.client_secret } }),
    );
    await expectProblem(await call("/v1/auth/api-keys", { token: access_token, json: { name: "persist" } }), 403, "forbidden");
    await expectProblem(await call("/v1/auth/api-keys", { token: access_token }), 403, "forbidden");
    await expectProblem(await call("/v1/auth/apps", { token: access_token, json: { name: "x", scopes: ["data:read"] } }), 403, "forbidden");
    await expectProblem(await call(`/v1/auth/apps/${app.client_id}`, { method: "DELETE", token: access_token }), 403, "forbidden");
    // Ordinary data:write operations still work for it.
    expect((await call("/v1/me", { method: "PATCH", token: access_token, json: { name: "via app" } })).status).toBe(200);
  });

  it("enforces each key's scopes per route with 403 insufficient_scope", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user, { scopes: ["data:read"] });
    expect((await call("/v1/me", { token: key })).status).toBe(200);
    const response = await call("/v1/me", { method: "PATCH", token: key, json: { name: "x" } });
    await expectProblem(response, 403, "insufficient_scope");
    expect(response.headers.get("WWW-Authenticate")).toBe('Bearer realm="agent-automation-hub", error="insufficient_scope", scope="data:write"');
  });
});
