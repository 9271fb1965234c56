// What each platform's test file (test/connections/platforms/<id>.test.ts) shares: a user with a
// connection pointing at a fresh scenario of the loopback fake, and the requests the fake received.
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { call } from "../../helpers/api";
import { Hub, newScenario, onlyRequestOf, requestsOf, respondWith, scenarioUrl, type Recorded, type ToolResult } from "../../tools/platform-helpers";
import { CLIENT_SECRET, authorizeAt, newClientId, signedInPerson, startOAuth } from "../oauth-helpers";

export { Hub, onlyRequestOf, requestsOf, respondWith, type Recorded, type ToolResult };

/** A user with one `platform` connection whose calls go to a fresh scenario; `config` may mint secrets with hub.secret(). */
export async function connected(platform: string, config: (hub: Hub) => Record<string, unknown>) {
  const hub = await Hub.create();
  const scenario = newScenario();
  const settings = { ...config(hub), base_url: scenarioUrl(scenario) } as Record<string, any>;
  const connection = await hub.connect(platform, settings);
  return { hub, scenario, connection, settings };
}

/** The request's method, path and query, exactly. */
export function expectCall(request: Recorded, method: string, path: string, query: Record<string, string> = {}) {
  expect({ method: request.method, path: request.path, query: request.query }).toEqual({ method, path, query });
}

/** A form-encoded body (Stripe, Twilio, Mailgun) as {key: value}. */
export function formOf(request: Recorded): Record<string, string> {
  expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
  return Object.fromEntries(new URLSearchParams(request.raw));
}

/** A JSON body, checked to be sent as JSON. */
export function jsonOf(request: Recorded): any {
  expect(request.headers["content-type"]).toBe("application/json");
  return JSON.parse(request.raw);
}

/** Runs a tool and expects it to succeed; returns its result. */
export async function ok(hub: Hub, tool: string, args: Record<string, unknown>): Promise<any> {
  const out = await hub.execute(tool, args);
  expect(out, JSON.stringify(out)).toMatchObject({ success: true, error_message: null });
  return out.result;
}

/** Runs a tool and expects it to fail; returns the failure. */
export async function failed(hub: Hub, tool: string, args: Record<string, unknown>) {
  const out = await hub.execute(tool, args);
  expect(out, JSON.stringify(out)).toMatchObject({ success: false, result: null });
  return out;
}

/**
 * A person who connected `platform` with OAuth (start → the fake provider → the callback), its
 * API calls going to a fresh scenario of the platform fake; `execute` runs a tool as them.
 * `extraConfig` adds settings of the platform's own (LinkedIn's api_version) to the connection's config.
 * It may be a function of the scenario's base URL, for an API served under a path of it (Salesforce's /services/data/v62.0).
 */
export async function connectedWithOAuth(platform: string, extraConfig: Record<string, unknown> | ((baseUrl: string) => Record<string, unknown>) = {}) {
  const person = await signedInPerson();
  const clientId = newClientId();
  const scenario = newScenario();
  const started = await startOAuth(person.key, {
    platform,
    name: `My ${platform}`,
    config: {
      authorize_url: `${env.TEST_OAUTH_URL}/authorize`,
      token_url: `${env.TEST_OAUTH_URL}/token`,
      client_id: clientId,
      client_secret: CLIENT_SECRET,
      base_url: scenarioUrl(scenario),
      ...(typeof extraConfig === "function" ? extraConfig(scenarioUrl(scenario)) : extraConfig),
    },
  });
  const authorize = Object.fromEntries(new URL(started.authorize_url).searchParams);
  expect((await person.browser.request(await authorizeAt(started.authorize_url))).status).toBe(200);
  const execute = async (name: string, args: Record<string, unknown>): Promise<ToolResult> => {
    const response = await call("/v1/tools/execute", { token: person.key, json: { name, arguments: args } });
    const body = (await response.json()) as ToolResult;
    expect(response.status, JSON.stringify(body)).toBe(200);
    return body;
  };
  return { person, scenario, authorize, clientId, connectionId: started.connection_id, execute };
}
