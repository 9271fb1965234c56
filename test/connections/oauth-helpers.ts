import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { Browser, newEmail } from "../dashboard/browser";
import { ORIGIN, call, json } from "../helpers/api";

export const CALLBACK = `${ORIGIN}/connections/oauth/callback`;
export const CLIENT_SECRET = "fake-provider-client-secret-0123456789";

/** A person signed in to the dashboard in a browser (the callback is theirs), with an API key. */
export async function signedInPerson() {
  const browser = new Browser();
  await browser.register(newEmail());
  const key = await browser.apiKey();
  return { browser, key };
}

export type Person = Awaited<ReturnType<typeof signedInPerson>>;

/** A client of its own at the fake provider, so a test sees only its own traffic. */
export const newClientId = () => `client-${crypto.randomUUID()}`;

export async function providerSettings(clientId: string, settings: Record<string, unknown>) {
  const answer = await fetch(`${env.TEST_OAUTH_URL}/__control/${clientId}`, { method: "POST", body: JSON.stringify(settings) });
  expect(answer.status).toBe(204);
}

/** Every access token of the client runs out at the provider (the hub does not know). */
export async function expireAtProvider(clientId: string) {
  expect((await fetch(`${env.TEST_OAUTH_URL}/__expire/${clientId}`, { method: "POST" })).status).toBe(204);
}

export interface ProviderStats {
  authorizations: number;
  authorize: Record<string, string> | null;
  code_exchanges: number;
  refreshes: number;
  reused_refresh_tokens: number;
  api_calls: number;
  api_refused: number;
  token_auth: string[];
  access_tokens_seen: string[];
  issued: string[];
}

export async function providerStats(clientId: string): Promise<ProviderStats> {
  return (await fetch(`${env.TEST_OAUTH_URL}/__stats/${clientId}`)).json();
}

/** The generic oauth2 platform's config, pointing at the fake provider. */
export const oauth2Config = (clientId: string, extra: Record<string, unknown> = {}) => ({
  authorize_url: `${env.TEST_OAUTH_URL}/authorize`,
  token_url: `${env.TEST_OAUTH_URL}/token`,
  client_id: clientId,
  client_secret: CLIENT_SECRET,
  base_url: `${env.TEST_OAUTH_URL}/api`,
  scopes: ["read", "write"],
  ...extra,
});

export async function startOAuth(key: string, body: Record<string, unknown>) {
  const response = await call("/v1/connections/oauth/start", { token: key, json: body });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`start: ${response.status} ${text}`);
  return JSON.parse(text) as { connection_id: number; authorize_url: string; expires_at: string };
}

/** The browser at the provider: it answers the authorization request with a redirect back to the hub. */
export async function authorizeAt(authorizeUrl: string): Promise<string> {
  const answer = await fetch(authorizeUrl, { redirect: "manual" });
  expect(answer.status, await answer.clone().text()).toBe(302);
  const back = new URL(answer.headers.get("Location")!);
  expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
  return `${back.pathname}${back.search}`;
}

/** Start → the provider → the callback in the person's browser: the connection's id, active. */
export async function connectOAuth2(person: Person, clientId: string, extra: Record<string, unknown> = {}): Promise<number> {
  const started = await startOAuth(person.key, { platform: "oauth2", name: "Fake API", config: oauth2Config(clientId), ...extra });
  const landed = await person.browser.request(await authorizeAt(started.authorize_url));
  expect([200, 303], await landed.clone().text()).toContain(landed.status);
  const connection = await getConnection(person.key, started.connection_id);
  expect(connection.status, JSON.stringify(connection)).toBe("active");
  return started.connection_id;
}

export async function getConnection(key: string, id: number) {
  const response = await call(`/v1/connections/${id}`, { token: key });
  expect(response.status).toBe(200);
  return json(response);
}

/** A call to the fake provider's API through the generic oauth2 platform's tool. */
export async function apiCall(key: string, path = "/api-check", connectionId?: number) {
  const response = await call("/v1/tools/execute", {
    token: key,
    json: { name: "oauth2_request", arguments: { method: "GET", path, ...(connectionId ? { connection_id: connectionId } : {}) } },
  });
  expect(response.status).toBe(200);
  return json(response);
}

/** As if time had passed: the hub's record of when the access token runs out. */
export async function expireInHub(connectionId: number, at = Date.now() - 1000) {
  await env.DB.prepare("UPDATE connections SET oauth_expires_at = ? WHERE id = ?").bind(at, connectionId).run();
}
