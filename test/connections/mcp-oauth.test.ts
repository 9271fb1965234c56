import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, json } from "../helpers/api";
import { CALLBACK, type Person, getConnection, signedInPerson } from "./oauth-helpers";

// An MCP server behind OAuth (test/fakes/mcp-oauth-server.mjs, built with the SDK's server-side
// auth): discovery, dynamic registration, PKCE and `resource` through the SDK's client auth.

const MCP_URL = () => env.TEST_MCP_OAUTH_URL;
const MCP_ORIGIN = () => new URL(env.TEST_MCP_OAUTH_URL).origin;

interface ServerStats {
  registrations: number;
  code_exchanges: number;
  refreshes: number;
  reused_refresh_tokens: number;
  mcp_calls: number;
  resources: string[];
}

async function serverSettings(settings: { access_ttl: number }) {
  const answer = await fetch(`${MCP_ORIGIN()}/__control`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(settings) });
  expect(answer.status).toBe(204);
}

const serverStats = async (clientId: string): Promise<ServerStats> => (await fetch(`${MCP_ORIGIN()}/__stats/${clientId}`)).json();

/** The server's consent: it answers with a redirect back to the hub's callback. */
async function authorizeAtServer(authorizeUrl: string) {
  const answer = await fetch(authorizeUrl, { redirect: "manual" });
  expect(answer.status, await answer.clone().text()).toBe(302);
  const back = new URL(answer.headers.get("Location")!);
  expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
  return `${back.pathname}${back.search}`;
}

async function execute(key: string, name: string, args: Record<string, unknown> = {}) {
  const response = await call("/v1/tools/execute", { token: key, json: { name, arguments: args } });
  return { status: response.status, body: await json(response) };
}

/** Creates the connection, which answers with its authorization, and completes it. */
async function authorizedMcp(person: Person) {
  const created = await call("/v1/connections", { token: person.key, json: { platform: "mcp", name: "Protected", config: { url: MCP_URL() } } });
  expect(created.status).toBe(201);
  const connection = await json(created);
  expect(connection).toMatchObject({ platform: "mcp", status: "pending", auth_mode: "oauth2" });
  const authorize = new URL(connection.authorize_url);
  const clientId = authorize.searchParams.get("client_id")!;
  expect((await person.browser.request(await authorizeAtServer(connection.authorize_url))).status).toBe(200);
  return { id: connection.connection_id as number, clientId, authorize };
}

describe("MCP servers behind OAuth", () => {
  it("creating one answers its authorization (discovery, registration, PKCE, resource); the callback completes it", async () => {
    const person = await signedInPerson();
    const { id, clientId, authorize } = await authorizedMcp(person);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${MCP_ORIGIN()}/authorize`);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      response_type: "code",
      redirect_uri: CALLBACK,
      code_challenge_method: "S256",
      resource: MCP_URL(),
      scope: "mcp:tools",
    });
    expect(authorize.searchParams.get("state")).toBeTruthy();
    expect(authorize.searchParams.get("code_challenge")).toBeTruthy();

    const connection = await getConnection(person.key, id);
    expect(connection).toMatchObject({ status: "active", auth_mode: "oauth2", oauth: { scopes: ["mcp:tools"] } });
    expect(await serverStats(clientId)).toMatchObject({ registrations: 1, code_exchanges: 1, resources: [MCP_URL()] });

    const tools = (await json(await call("/v1/tools", { token: person.key }))).tools.map((t: any) => t.name);
    expect(tools).toEqual(expect.arrayContaining([`mcp_${id}_whoami`, `mcp_${id}_echo`]));
    const whoami = await execute(person.key, `mcp_${id}_whoami`);
    expect(whoami.body, JSON.stringify(whoami.body)).toMatchObject({ success: true });
    expect(JSON.stringify(whoami.body.result.content)).toContain(`client ${clientId}`);
  });

  it("refreshes the token on a 401 and ahead of expiry, through a new session, sending each refresh token once", async () => {
    const person = await signedInPerson();
    const { id, clientId } = await authorizedMcp(person);
    expect((await execute(person.key, `mcp_${id}_echo`, { message: "first" })).body).toMatchObject({ success: true });

    // The server ends the token early: the call is refused, refreshed once, and sent again. The
    // new token lives 30 s, within the minute in which a token is refreshed before a call.
    await serverSettings({ access_ttl: 30 });
    expect((await fetch(`${MCP_ORIGIN()}/__expire/${clientId}`, { method: "POST" })).status).toBe(204);
    const afterRefusal = await execute(person.key, `mcp_${id}_echo`, { message: "after a 401" });
    expect(afterRefusal.body, JSON.stringify(afterRefusal.body)).toMatchObject({ success: true });
    expect(JSON.stringify(afterRefusal.body.result.content)).toContain("after a 401");
    expect(await serverStats(clientId)).toMatchObject({ refreshes: 1, reused_refresh_tokens: 0 });

    // Runs out within the minute: refreshed before the call.
    await serverSettings({ access_ttl: 3600 });
    const ahead = await execute(person.key, `mcp_${id}_echo`, { message: "ahead" });
    expect(ahead.body).toMatchObject({ success: true });
    const stats = await serverStats(clientId);
    expect(stats).toMatchObject({ refreshes: 2, reused_refresh_tokens: 0 });
    expect(stats.resources.every((resource) => resource === MCP_URL())).toBe(true);
    expect((await getConnection(person.key, id)).oauth.refreshed_at).not.toBeNull();
  });

  it("a connection test answers needs_authorization, and completing it creates the connection", async () => {
    const person = await signedInPerson();
    const tested = await json(await call("/v1/connections/test", { token: person.key, json: { platform: "mcp", config: { url: MCP_URL() } } }));
    expect(tested).toMatchObject({ success: false, status: "needs_authorization" });
    expect(tested.authorize_url).toContain(`${MCP_ORIGIN()}/authorize?`);
    expect(tested.expires_at).toBeTruthy();
    // A test stores nothing.
    expect((await json(await call("/v1/connections", { token: person.key }))).data).toEqual([]);

    expect((await person.browser.request(await authorizeAtServer(tested.authorize_url))).status).toBe(200);
    const [created] = (await json(await call("/v1/connections", { token: person.key }))).data;
    expect(created).toMatchObject({ platform: "mcp", status: "active", auth_mode: "oauth2", name: `MCP server ${new URL(MCP_URL()).host}` });
    expect((await execute(person.key, `mcp_${created.connection_id}_whoami`)).body).toMatchObject({ success: true });
  });

  it("reconnects with the same id and the same registration", async () => {
    const person = await signedInPerson();
    const { id, clientId } = await authorizedMcp(person);
    const reconnect = await call(`/v1/connections/${id}/reconnect`, { token: person.key, json: {} });
    expect(reconnect.status).toBe(200);
    const { authorize_url } = await json(reconnect);
    expect(new URL(authorize_url).searchParams.get("client_id")).toBe(clientId);
    expect((await person.browser.request(await authorizeAtServer(authorize_url))).status).toBe(200);
    expect(await serverStats(clientId)).toMatchObject({ registrations: 1, code_exchanges: 2 });
    expect((await execute(person.key, `mcp_${id}_whoami`)).body).toMatchObject({ success: true });
    expect((await json(await call("/v1/connections", { token: person.key }))).data).toHaveLength(1);
  });

  it("leaves open servers as they were: created active, no authorization", async () => {
    const { key } = await signedInPerson();
    const created = await json(await call("/v1/connections", { token: key, json: { platform: "mcp", name: "Open", config: { url: env.TEST_MCP_URL } } }));
    expect(created).toMatchObject({ status: "active", auth_mode: "config", oauth: null });
    expect(created.authorize_url).toBeUndefined();
  });
});
