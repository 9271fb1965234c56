import { describe, expect, it } from "vitest";
import { ORIGIN, call, json, newApp, newUser } from "../helpers/api";
import { authorizeUrl, csrfFrom, obtainCode, openAuthorizePage, postForm } from "../helpers/authorize";

// RFC 8707: a token asked for one resource is bound to it (its `aud`), so a token obtained for
// another server through the hub's consent page cannot be replayed at the hub.

const REDIRECT = "https://app.example/callback";
const EVIL = "https://mcp.evil.example/mcp";
const MCP = `${ORIGIN}/mcp`;

async function token(form: Record<string, string>) {
  const response = await call("/v1/auth/token", { form });
  return { status: response.status, body: await json(response) };
}

function audienceOf(accessToken: string): unknown {
  const payload = accessToken.split(".")[1]!;
  return JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/"))).aud;
}

const listTools = (accessToken: string) =>
  call("/mcp", { token: accessToken, json: { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers: { Accept: "application/json, text/event-stream" } });
const me = (accessToken: string) => call("/v1/me", { token: accessToken });

/** The whole consent flow for `resource`, then the code exchanged (sending `exchangeResource`, if any). */
async function tokensFor(resource: string | undefined, exchangeResource = resource) {
  const user = await newUser();
  const app = await newApp(await newUser());
  const code = await obtainCode(user, { client_id: app.client_id, redirect_uri: REDIRECT, ...(resource ? { resource } : {}) });
  const exchanged = await token({
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    client_id: app.client_id,
    client_secret: app.client_secret,
    ...(exchangeResource ? { resource: exchangeResource } : {}),
  });
  return { app, ...exchanged };
}

describe("resource indicators (RFC 8707)", () => {
  it("binds a token asked for another server to it: /mcp and /v1 answer 401 with the MCP challenge", async () => {
    const { status, body } = await tokensFor(EVIL);
    expect(status).toBe(200);
    expect(audienceOf(body.access_token)).toBe(EVIL);

    const atMcp = await listTools(body.access_token);
    expect(atMcp.status).toBe(401);
    const challenge = atMcp.headers.get("WWW-Authenticate")!;
    expect(challenge).toContain(`resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource"`);
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain("another resource");
    expect((await me(body.access_token)).status).toBe(401);
  });

  it("keeps the binding across refreshes, and refuses to widen it", async () => {
    const { app, body } = await tokensFor(EVIL);
    const client = { client_id: app.client_id, client_secret: app.client_secret };
    const widened = await token({ grant_type: "refresh_token", refresh_token: body.refresh_token, resource: MCP, ...client });
    expect(widened).toMatchObject({ status: 400, body: { error: "invalid_target" } });
    const refreshed = await token({ grant_type: "refresh_token", refresh_token: body.refresh_token, ...client });
    expect(refreshed.status).toBe(200);
    expect(audienceOf(refreshed.body.access_token)).toBe(EVIL);
    expect((await listTools(refreshed.body.access_token)).status).toBe(401);
  });

  it("accepts a token for <origin>/mcp at /mcp only, and an API token at both", async () => {
    const forMcp = await tokensFor(MCP);
    expect(audienceOf(forMcp.body.access_token)).toBe(MCP);
    expect((await listTools(forMcp.body.access_token)).status).toBe(200);
    expect((await me(forMcp.body.access_token)).status).toBe(401);

    const forApi = await tokensFor(undefined);
    expect((await listTools(forApi.body.access_token)).status).toBe(200);
    expect((await me(forApi.body.access_token)).status).toBe(200);
  });

  it("refuses at the token endpoint a resource other than the one approved", async () => {
    const swapped = await tokensFor(MCP, EVIL);
    expect(swapped).toMatchObject({ status: 400, body: { error: "invalid_target" } });
    // Approved for the API (no resource): the token request may narrow to the hub's MCP endpoint, never reach another server.
    expect((await tokensFor(undefined, EVIL)).body.error).toBe("invalid_target");
    const narrowed = await tokensFor(undefined, MCP);
    expect(narrowed.status).toBe(200);
    expect(audienceOf(narrowed.body.access_token)).toBe(MCP);
  });

  it("names the resource on the consent page, and warns when it is another server", async () => {
    const user = await newUser();
    const app = await newApp(await newUser());
    for (const [resource, warned] of [
      [EVIL, true],
      [MCP, false],
    ] as const) {
      const { url, jar, csrf } = await openAuthorizePage({ client_id: app.client_id, redirect_uri: REDIRECT, resource });
      const consent = await postForm(url, jar, { csrf_token: csrf, step: "sign_in", email: user.email, password: user.password });
      const html = await consent.text();
      expect(html).toContain(`<strong class="resource">${resource}</strong>`);
      expect(html.includes("another server, not this hub")).toBe(warned);
      expect(csrfFrom(html)).toBeTruthy();
    }
  });

  it("redirects a malformed or repeated resource back as invalid_target", async () => {
    const app = await newApp(await newUser());
    for (const query of [`&resource=${encodeURIComponent("https://a.example/mcp#frag")}`, "&resource=not-a-uri", `&resource=${MCP}&resource=${EVIL}`]) {
      const response = await call(`${authorizeUrl({ client_id: app.client_id, redirect_uri: REDIRECT, state: "s" })}${query}`);
      expect(response.status).toBe(302);
      expect(new URL(response.headers.get("Location")!).searchParams.get("error")).toBe("invalid_target");
    }
  });

  it("binds client-credentials tokens too", async () => {
    const app = await newApp(await newUser());
    const bound = await token({ grant_type: "client_credentials", client_id: app.client_id, client_secret: app.client_secret, resource: EVIL });
    expect(bound.status).toBe(200);
    expect((await me(bound.body.access_token)).status).toBe(401);
    const plain = await token({ grant_type: "client_credentials", client_id: app.client_id, client_secret: app.client_secret });
    expect((await me(plain.body.access_token)).status).toBe(200);
  });
});
