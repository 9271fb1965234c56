// What each platform's test file (test/connections/platforms/<id>.test.ts) shares: a user with a
// connection pointing at a fresh scenario of the loopback fake, and the requests the fake received.
import { expect } from "vitest";
import { Hub, newScenario, onlyRequestOf, requestsOf, respondWith, scenarioUrl, type Recorded } from "../../tools/platform-helpers";

export { Hub, onlyRequestOf, requestsOf, respondWith, type Recorded };

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
