import { exports } from "cloudflare:workers";

export const ORIGIN = "http://hub.test";

let addressCounter = 0;
/** Each call gets its own client address unless one is given, so per-address limits stay apart. */
const nextAddress = () => `198.51.100.${(addressCounter++ % 250) + 1}`;

export interface CallOptions {
  method?: string;
  token?: string;
  json?: unknown;
  form?: Record<string, string>;
  headers?: Record<string, string>;
  body?: BodyInit;
}

/** Sends a request through the Worker's own fetch handler, as a client would. */
export async function call(path: string, options: CallOptions = {}): Promise<Response> {
  const headers = new Headers(options.headers);
  if (!headers.has("CF-Connecting-IP")) headers.set("CF-Connecting-IP", nextAddress());
  if (options.token) headers.set("Authorization", `Bearer ${options.token}`);
  let body = options.body;
  if (options.json !== undefined) {
    headers.set("Content-Type", "application/json");
    body = JSON.stringify(options.json);
  }
  if (options.form) {
    headers.set("Content-Type", "application/x-www-form-urlencoded");
    body = new URLSearchParams(options.form).toString();
  }
  const method = options.method ?? (body !== undefined ? "POST" : "GET");
  return exports.default.fetch(new Request(`${ORIGIN}${path}`, { method, headers, body, redirect: "manual" }));
}

export async function json<T = any>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

let userCounter = 0;

export interface TestUser {
  id: number;
  email: string;
  password: string;
  accessToken: string;
  refreshToken: string;
}

/** Registers a fresh user (tests share one database, so every email is unique). */
export async function newUser(): Promise<TestUser> {
  const email = `user${Date.now()}-${userCounter++}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = "correct horse battery staple";
  const response = await call("/v1/auth/register", { json: { email, password, name: "Test User" } });
  if (response.status !== 201) throw new Error(`register failed: ${response.status} ${await response.text()}`);
  const body = await json(response);
  return { id: body.user.id, email, password, accessToken: body.access_token, refreshToken: body.refresh_token };
}

export async function newApiKey(user: TestUser, body: Record<string, unknown> = {}): Promise<{ id: number; key: string }> {
  const response = await call("/v1/auth/api-keys", { token: user.accessToken, json: { name: "test key", ...body } });
  if (response.status !== 201) throw new Error(`api key failed: ${response.status} ${await response.text()}`);
  return json(response);
}

export async function newApp(
  user: TestUser,
  body: Record<string, unknown> = {},
): Promise<{ client_id: string; client_secret: string; redirect_uris: string[]; scopes: string[] }> {
  const response = await call("/v1/auth/apps", {
    token: user.accessToken,
    json: { name: "Test App", redirect_uris: ["https://app.example/callback"], scopes: ["data:read", "workflow:execute"], ...body },
  });
  if (response.status !== 201) throw new Error(`app failed: ${response.status} ${await response.text()}`);
  return json(response);
}

/** Asserts an RFC 9457 problem response and returns its body. */
export async function expectProblem(response: Response, status: number, code: string) {
  const text = await response.text();
  if (response.status !== status) throw new Error(`expected ${status} ${code}, got ${response.status}: ${text}`);
  if (!response.headers.get("Content-Type")?.startsWith("application/problem+json")) {
    throw new Error(`expected application/problem+json, got ${response.headers.get("Content-Type")}: ${text}`);
  }
  const body = JSON.parse(text);
  if (body.code !== code) throw new Error(`expected code ${code}, got ${body.code}: ${text}`);
  return body as { type: string; title: string; status: number; detail: string; code: string; request_id: string; errors?: any[] };
}

/** Reads a streamed answer until `marker` has arrived, then hangs up, as a client that goes away. */
export async function hangUpAfter(response: Response, marker: string): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  while (!seen.includes(marker)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before "${marker}": ${seen}`);
    seen += decoder.decode(value);
  }
  await reader.cancel();
  return seen;
}
