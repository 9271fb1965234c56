// Shared helpers for the native platform tool tests: scenarios on the loopback platform fake
// (test/fakes/platform-fake.mjs) and a per-test client of the hub that checks no response it
// reads carries one of the test's secrets.
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { call, expectProblem, newApiKey, newUser, type CallOptions } from "../helpers/api";

export const FAKE = env.TEST_FAKE_URL;
export const MASK = "••••";

/** A fresh scenario id on the fake ([\w-]+). */
export const newScenario = () => crypto.randomUUID().replaceAll("-", "");
/** The base_url that sends a platform's calls to a scenario. */
export const scenarioUrl = (scenario: string) => `${FAKE}/s/${scenario}`;

export interface Recorded {
  method: string;
  /** Relative to /s/<scenario>. */
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | undefined>;
  body: any;
  raw: string;
}

/** Every request the hub sent to a scenario, oldest first. */
export async function requestsOf(scenario: string): Promise<Recorded[]> {
  const response = await fetch(`${FAKE}/__requests/${scenario}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Recorded[];
}

/** The one request a scenario received (fails if it got none or several). */
export async function onlyRequestOf(scenario: string): Promise<Recorded> {
  const requests = await requestsOf(scenario);
  expect(requests.map((r) => `${r.method} ${r.path}`)).toHaveLength(1);
  return requests[0]!;
}

/** Makes every later request of the scenario answer `status` with `body` (and extra headers). */
export async function respondWith(scenario: string, status: number, body: unknown, headers?: Record<string, string>): Promise<void> {
  const response = await fetch(`${FAKE}/__respond/${scenario}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ status, body, headers }),
  });
  expect(response.status).toBe(204);
  await response.arrayBuffer();
}

export const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

export async function md5Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest("MD5", new TextEncoder().encode(text)));
}

export async function hmacSha256Hex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return hex(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(message)));
}

export interface HubResponse {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

export interface ToolResult {
  name: string;
  success: boolean;
  result: any;
  error_message: string | null;
  duration_ms: number;
  call_id: string;
  error_status: number | null;
  retryable: boolean;
  retry_after_seconds: number | null;
}

/**
 * One user with an API key. Every response read through it is checked against the secrets the
 * test made with `secret()`: no response body may contain one.
 */
export class Hub {
  readonly secrets = new Set<string>();

  private constructor(readonly key: string) {}

  static async create(): Promise<Hub> {
    const { key } = await newApiKey(await newUser());
    return new Hub(key);
  }

  /** A unique credential, remembered so that responses can be checked for leaks. */
  secret(prefix: string, suffix = ""): string {
    const value = `${prefix}${crypto.randomUUID().replaceAll("-", "")}${suffix}`;
    this.secrets.add(value);
    return value;
  }

  async send(path: string, options: CallOptions = {}): Promise<HubResponse> {
    const response = await call(path, { token: this.key, ...options });
    const text = await response.text();
    for (const secret of this.secrets) {
      if (text.includes(secret)) throw new Error(`The response of ${options.method ?? (options.json ? "POST" : "GET")} ${path} contains a secret: ${text}`);
    }
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    return { status: response.status, headers: response.headers, text, body };
  }

  /** Asserts an RFC 9457 problem (status and code) and returns it. */
  async problem(path: string, options: CallOptions, status: number, code: string) {
    const response = await this.send(path, options);
    return expectProblem(new Response(response.text, { status: response.status, headers: response.headers }), status, code);
  }

  /** POST /v1/connections; expects 201. */
  async connect(platform: string, config: Record<string, unknown>, name = `${platform} connection`): Promise<any> {
    const response = await this.send("/v1/connections", { json: { platform, name, config } });
    if (response.status !== 201) throw new Error(`creating a ${platform} connection failed: ${response.status} ${response.text}`);
    expect(response.body).toMatchObject({ platform, name, status: "active", error_message: null });
    return response.body;
  }

  /** POST /v1/tools/execute; expects 200 and returns the ToolResult. */
  async execute(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    const response = await this.send("/v1/tools/execute", { json: { name, arguments: args } });
    if (response.status !== 200) throw new Error(`executing ${name} answered ${response.status}: ${response.text}`);
    expect(response.body).toMatchObject({ name, call_id: expect.stringMatching(/^call_/), duration_ms: expect.any(Number) });
    return response.body as ToolResult;
  }

  /** GET /v1/connections: the caller's connections, newest first. */
  async connections(): Promise<any[]> {
    const response = await this.send("/v1/connections");
    expect(response.status).toBe(200);
    return response.body.data;
  }

  async connection(id: number): Promise<any> {
    const found = (await this.connections()).find((c) => c.connection_id === id);
    if (!found) throw new Error(`connection ${id} is not listed`);
    return found;
  }
}
