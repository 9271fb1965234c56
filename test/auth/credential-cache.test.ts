import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_AGE_MS } from "../../src/auth/credential-cache";
import { call, expectProblem, newApiKey, newUser } from "../helpers/api";

/**
 * Credentials are cached per isolate (src/auth/credential-cache.ts). A revocation through the API
 * takes effect at once in the isolate that made it; another isolate, which only sees the database
 * change, stops accepting the credential within MAX_AGE_MS (10 s). The second case is simulated by
 * revoking in D1 directly, as a revocation made by another isolate looks from here.
 */
async function refusedWithin(path: string, token: string, boundMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started <= boundMs + 1_000) {
    const response = await call(path, { token });
    if (response.status === 401) return Date.now() - started;
    expect(response.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`still accepted after ${boundMs + 1_000} ms`);
}

describe("the credential cache", () => {
  it("states a bound of at most 10 s", () => {
    expect(MAX_AGE_MS).toBeLessThanOrEqual(10_000);
  });

  it("stops an API key revoked through the API at once, in the isolate that revoked it", async () => {
    const user = await newUser();
    const { id, key } = await newApiKey(user);
    expect((await call("/v1/me", { token: key })).status).toBe(200);
    expect((await call(`/v1/auth/api-keys/${id}`, { method: "DELETE", token: user.accessToken })).status).toBe(204);
    await expectProblem(await call("/v1/me", { token: key }), 401, "unauthorized");
  });

  it("stops an API key revoked by another isolate within the bound", { timeout: 20_000 }, async () => {
    const { id, key } = await newApiKey(await newUser());
    expect((await call("/v1/me", { token: key })).status).toBe(200);
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").bind(Date.now(), id).run();
    const elapsed = await refusedWithin("/v1/me", key, MAX_AGE_MS);
    expect(elapsed).toBeLessThanOrEqual(MAX_AGE_MS + 500);
  });

  it("stops a login token whose grant another isolate revoked within the bound", { timeout: 20_000 }, async () => {
    const user = await newUser();
    expect((await call("/v1/me", { token: user.accessToken })).status).toBe(200);
    await env.DB.prepare("UPDATE grants SET revoked_at = ? WHERE user_id = ?").bind(Date.now(), user.id).run();
    const elapsed = await refusedWithin("/v1/me", user.accessToken, MAX_AGE_MS);
    expect(elapsed).toBeLessThanOrEqual(MAX_AGE_MS + 500);
  });

  it("checks expiry on every request: a cached key is refused the moment it expires", async () => {
    const { key } = await newApiKey(await newUser(), { expires_at: new Date(Date.now() + 1_500).toISOString() });
    expect((await call("/v1/me", { token: key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    const body = await expectProblem(await call("/v1/me", { token: key }), 401, "unauthorized");
    expect(body.detail).toMatch(/expired/);
  });
});
