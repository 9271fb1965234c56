import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { removeUnusedClients } from "../../src/auth/client-registration";
import { createDb } from "../../src/db/client";
import { ORIGIN, call, json, newUser } from "../helpers/api";
import { obtainCode, openAuthorizePage, pkcePair, postForm } from "../helpers/authorize";

const REDIRECT = "http://127.0.0.1:33418/callback";

async function register(metadata: Record<string, unknown>, address = `203.0.113.${Math.floor(Math.random() * 250) + 1}`) {
  return call("/v1/auth/register-client", { json: metadata, headers: { "CF-Connecting-IP": address } });
}

describe("dynamic client registration (RFC 7591) for MCP clients", () => {
  it("is advertised by the authorization server metadata, with public clients (auth method none)", async () => {
    const metadata = await json(await call("/.well-known/oauth-authorization-server"));
    expect(metadata.registration_endpoint).toBe(`${ORIGIN}/v1/auth/register-client`);
    expect(metadata.token_endpoint_auth_methods_supported).toContain("none");
    expect(metadata.code_challenge_methods_supported).toEqual(["S256"]);
  });

  it("registers a public client and takes it from 401 to a working token, PKCE required", async () => {
    const response = await register({ client_name: "Inspector", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" });
    expect(response.status).toBe(201);
    const client = await json(response);
    expect(client).toMatchObject({
      client_id: expect.stringMatching(/^ahc_/),
      client_name: "Inspector",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      scope: "data:read workflow:execute",
    });
    expect(client.client_secret).toBeUndefined();

    const user = await newUser();
    // Without PKCE the authorize request is refused, on the hub's own page: a self-registered
    // client's redirect URI is never used to carry errors (no open redirect).
    const noPkce = await call(
      `/auth/authorize?${new URLSearchParams({ response_type: "code", client_id: client.client_id, redirect_uri: REDIRECT, state: "s" })}`,
    );
    expect(noPkce.status).toBe(400);
    expect(noPkce.headers.get("Location")).toBeNull();
    expect(await noPkce.text()).toContain("must use PKCE");
    const badType = await call(`/auth/authorize?${new URLSearchParams({ response_type: "token", client_id: client.client_id, redirect_uri: REDIRECT })}`);
    expect(badType.status).toBe(400);
    expect(badType.headers.get("Location")).toBeNull();

    // The consent page says the name is the client's own claim.
    const { verifier, challenge } = await pkcePair();
    const params = { client_id: client.client_id, redirect_uri: REDIRECT, state: "s", code_challenge: challenge, code_challenge_method: "S256" };
    const code = await obtainCode(user, { ...params, resource: `${ORIGIN}/mcp` });
    const form = {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: verifier,
      resource: `${ORIGIN}/mcp`,
    };
    const tokens = await json(await call("/v1/auth/token", { form }));
    expect(tokens).toMatchObject({ token_type: "Bearer", access_token: expect.any(String), refresh_token: expect.any(String) });

    const mcp = await call("/mcp", {
      token: tokens.access_token,
      headers: { Accept: "application/json, text/event-stream" },
      json: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "math_evaluate", arguments: { expression: "2 + 2" } } },
    });
    expect(mcp.status).toBe(200);
    expect(await mcp.text()).toContain('\\"success\\":true');

    // The refresh token works with the client id alone; the client cannot act on its own.
    const refreshed = await call("/v1/auth/token", { form: { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: client.client_id } });
    expect(refreshed.status).toBe(200);
    const alone = await json(await call("/v1/auth/token", { form: { grant_type: "client_credentials", client_id: client.client_id } }));
    expect(alone.error).toBe("invalid_client");
  });

  it("shows a warning on the consent page of a self-registered client", async () => {
    const client = await json(await register({ client_name: "Totally Official App", redirect_uris: [REDIRECT] }));
    const { challenge } = await pkcePair();
    const user = await newUser();
    const page = await openAuthorizePage({ client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256" });
    const consent = await postForm(page.url, page.jar, { csrf_token: page.csrf, step: "sign_in", email: user.email, password: user.password });
    const html = await consent.text();
    expect(html).toContain("Totally Official App");
    expect(html).toContain("This application registered itself");
  });

  it("refuses bad metadata with RFC 7591 errors", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ redirect_uris: ["http://evil.example/cb"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["cursor://anysphere/cb"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["https://app.example/cb#frag"] }, "invalid_redirect_uri"],
      [{ redirect_uris: [] }, "invalid_client_metadata"],
      [{ redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_basic" }, "invalid_client_metadata"],
      [{ redirect_uris: [REDIRECT], grant_types: ["client_credentials"] }, "invalid_client_metadata"],
      [{ redirect_uris: [REDIRECT], scope: "data:read account:admin" }, "invalid_client_metadata"],
    ];
    for (const [metadata, error] of cases) {
      const response = await register(metadata);
      expect(response.status, JSON.stringify(metadata)).toBe(400);
      expect((await json(response)).error).toBe(error);
    }
  });

  it("is rate limited per address", async () => {
    // The one-minute window may roll over mid-test; then the new window's ten pass too, never fewer.
    const statuses: number[] = [];
    let response: Response | undefined;
    for (let i = 0; i < 21 && response?.status !== 429; i++) {
      response = await register({ redirect_uris: [REDIRECT] }, "203.0.113.251");
      statuses.push(response.status);
    }
    expect(response!.status).toBe(429);
    expect(response!.headers.get("Retry-After")).toMatch(/^\d+$/);
    const accepted = statuses.slice(0, -1);
    expect(accepted.every((status) => status === 201)).toBe(true);
    expect(accepted.length).toBeGreaterThanOrEqual(10);
    expect(accepted.length).toBeLessThanOrEqual(20);
  });

  it("removes clients nobody approved a day after they registered, and keeps approved ones", async () => {
    const unused = await json(await register({ redirect_uris: [REDIRECT] }));
    const used = await json(await register({ redirect_uris: [REDIRECT] }));
    const { verifier, challenge } = await pkcePair();
    const code = await obtainCode(await newUser(), {
      client_id: used.client_id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
    });
    expect(
      (
        await call("/v1/auth/token", {
          form: { grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: used.client_id, code_verifier: verifier },
        })
      ).status,
    ).toBe(200);

    const db = createDb(env.DB);
    await removeUnusedClients(db, Date.now() + 25 * 3600 * 1000);
    const left = await env.DB.prepare("SELECT client_id FROM oauth_apps WHERE client_id IN (?, ?)").bind(unused.client_id, used.client_id).all();
    expect(left.results.map((r: any) => r.client_id)).toEqual([used.client_id]);
  });
});
