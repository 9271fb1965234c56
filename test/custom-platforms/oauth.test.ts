// A custom platform whose document declares OAuth 2.0 (authorization code) connects through the
// same flow as the declared OAuth platforms: start, the provider's consent, the callback, calls
// with the token (against the fake provider of test/fakes/oauth-provider.mjs).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectProblem, json } from "../helpers/api";
import { CALLBACK, CLIENT_SECRET, authorizeAt, newClientId, providerStats, signedInPerson, startOAuth } from "../connections/oauth-helpers";
import { Browser, newEmail } from "../dashboard/browser";
import { addPlatform } from "./helpers";

const oauthDocument = () => ({
  openapi: "3.1.0",
  info: { title: "Fake Provider API", version: "1.0.0" },
  servers: [{ url: `${env.TEST_OAUTH_URL}/api` }],
  security: [{ provider_auth: ["read"] }],
  components: {
    securitySchemes: {
      provider_auth: {
        type: "oauth2",
        flows: {
          authorizationCode: {
            authorizationUrl: `${env.TEST_OAUTH_URL}/authorize`,
            tokenUrl: `${env.TEST_OAUTH_URL}/token`,
            scopes: { read: "Read things", write: "Change things" },
          },
        },
      },
    },
  },
  paths: { "/me": { get: { operationId: "getMe", summary: "Who the token is for", responses: { 200: { description: "The caller" } } } } },
});

describe("a custom platform with OAuth 2.0 authorization code", () => {
  it("connects with OAuth, then calls with the token", async () => {
    const person = await signedInPerson();
    const created = await addPlatform(person.key, oauthDocument());
    expect(created.status).toBe(201);
    const platform = await json(created);
    expect(platform).toMatchObject({
      auth_kind: "oauth2",
      auth: { kind: "oauth2", scheme: "provider_auth", scopes: ["read", "write"] },
      secret_fields: ["client_secret"],
    });
    // Credentials cannot be pasted for it: it connects with OAuth.
    await expectProblem(
      await call("/v1/connections", { token: person.key, json: { platform: platform.platform_id, name: "x", config: { client_id: "c" } } }),
      422,
      "validation_failed",
    );

    const clientId = newClientId();
    const started = await startOAuth(person.key, {
      platform: platform.platform_id,
      name: "Provider",
      config: { client_id: clientId, client_secret: CLIENT_SECRET },
    });
    const url = new URL(started.authorize_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${env.TEST_OAUTH_URL}/authorize`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: clientId,
      redirect_uri: CALLBACK,
      code_challenge_method: "S256",
      scope: "read write",
    });

    const landed = await person.browser.request(await authorizeAt(started.authorize_url));
    expect(landed.status).toBe(200);
    const connection = await json(await call(`/v1/connections/${started.connection_id}`, { token: person.key }));
    expect(connection).toMatchObject({ platform: platform.platform_id, status: "active", auth_mode: "oauth2", oauth: { scopes: ["read", "write"] } });
    expect(JSON.stringify(connection)).not.toContain(CLIENT_SECRET);

    const result = await json(await call("/v1/tools/execute", { token: person.key, json: { name: `${platform.platform_id}_get_me`, arguments: {} } }));
    expect(result, JSON.stringify(result)).toMatchObject({ success: true, result: { ok: true, client_id: clientId, path: "/api/me" } });
    expect(await providerStats(clientId)).toMatchObject({ code_exchanges: 1, api_calls: 1 });
  });

  it("holds the document's OAuth endpoints to the outbound address rules", async () => {
    const person = await signedInPerson();
    const document = oauthDocument();
    document.components.securitySchemes.provider_auth.flows.authorizationCode.tokenUrl = "http://169.254.169.254/token";
    const problem = await expectProblem(await addPlatform(person.key, document), 422, "validation_failed");
    expect(problem.detail).toContain("OAuth endpoint is not allowed");
  });

  it("connects from the dashboard's Connect with form too", async () => {
    const browser = new Browser();
    await browser.register(newEmail());
    const key = await browser.apiKey();
    const platform = await json(await addPlatform(key, oauthDocument()));
    const clientId = newClientId();
    const form = `/app/connections/new?platform=${platform.platform_id}`;
    const posted = await browser.request("/app/connections/connect", {
      form: {
        csrf_token: await browser.csrf(form),
        platform: platform.platform_id,
        name: "Provider from the dashboard",
        "config.client_id": clientId,
        "config.client_secret": CLIENT_SECRET,
      },
    });
    expect(posted.status, await posted.clone().text()).toBe(303);
    const authorizeUrl = posted.headers.get("Location")!;
    expect(authorizeUrl.startsWith(`${env.TEST_OAUTH_URL}/authorize?`)).toBe(true);
    const back = await browser.request(await authorizeAt(authorizeUrl));
    expect(back.headers.get("Location")).toBe("/app/connections");
    const [connection] = (await json(await call("/v1/connections", { token: key }))).data;
    expect(connection).toMatchObject({ platform: platform.platform_id, name: "Provider from the dashboard", status: "active" });
  });
});
