// End to end: real MCP clients against the hub's /mcp on a real `wrangler dev`: the MCP SDK client
// with an API key (list, call, progress, cancel), the SDK client with no prior setup walking the
// MCP authorization flow (401 → resource metadata → authorization server metadata → dynamic
// registration → the authorize page in headless Chromium → token → call), and the MCP Inspector's
// command line listing and calling a tool.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHub } from "../../scripts/start.mjs";
import { freePort } from "../../scripts/free-port.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const run = promisify(execFile);

let hub: Awaited<ReturnType<typeof startHub>> | undefined;
let stateDir: string | undefined;
let browser: Browser | undefined;
let callbackServer: Server | undefined;
let redirectUrl = "";
let apiKey = "";
const user = { email: `mcp.${Date.now()}@example.com`, password: "a long enough password 42" };

const api = (p: string, init: RequestInit = {}, token = apiKey) =>
  fetch(`${hub!.origin}${p}`, { ...init, headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}`, ...init.headers } });

beforeAll(async () => {
  stateDir = mkdtempSync(path.join(os.tmpdir(), "hub-mcp-e2e-"));
  hub = await startHub({ port: await freePort(), persistTo: stateDir, stdio: "pipe", bootstrap: false });
  hub.child.stdout?.resume();
  hub.child.stderr?.resume();
  // Where the authorization server sends the browser back: the client reads the code from there.
  callbackServer = createHttpServer((_req, res) => res.end("You can close this window."));
  await new Promise<void>((resolve) => callbackServer!.listen(0, "127.0.0.1", resolve));
  redirectUrl = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run"] });

  const registered = await fetch(`${hub.origin}/v1/auth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(user),
  });
  expect(registered.status).toBe(201);
  const { access_token } = (await registered.json()) as { access_token: string };
  const key = await api("/v1/auth/api-keys", { method: "POST", body: JSON.stringify({ name: "mcp e2e" }) }, access_token);
  apiKey = ((await key.json()) as { key: string }).key;
}, 180_000);

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  await hub?.stop();
  await new Promise<void>((resolve) => (callbackServer ? callbackServer.close(() => resolve()) : resolve()));
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

describe("MCP clients against a running hub", () => {
  it("the MCP SDK client with an API key lists tools, calls one with progress, and cancels one", async () => {
    const client = new Client({ name: "e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${hub!.origin}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["math_evaluate", "wait", "hub_list_workflows"]));

    const math = await client.callTool({ name: "math_evaluate", arguments: { expression: "6 * 7" } });
    expect(math.structuredContent).toMatchObject({ success: true, result: { result: 42 } });

    const progress: number[] = [];
    await client.callTool({ name: "wait", arguments: { seconds: 2 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(progress).toEqual([1, 2]);

    const abort = new AbortController();
    const cancelled = client.callTool({ name: "wait", arguments: { seconds: 30 } }, undefined, { signal: abort.signal, onprogress: () => abort.abort() });
    await expect(cancelled).rejects.toThrow();
    const deadline = Date.now() + 15_000;
    let stopped: { error_message?: string; duration_ms?: number } | undefined;
    while (!stopped && Date.now() < deadline) {
      const { data } = (await (await api("/v1/audit-logs")).json()) as {
        data: { tool: string; outcome: string; error_message: string; duration_ms: number }[];
      };
      stopped = data.find((r) => r.tool === "wait" && r.outcome === "error");
      if (!stopped) await new Promise((r) => setTimeout(r, 200));
    }
    expect(stopped).toMatchObject({ error_message: "The tool call was cancelled." });
    expect(stopped!.duration_ms).toBeLessThan(15_000);
    await client.close();
  }, 60_000);

  it("a client with no prior setup goes from 401 through discovery, registration and the authorize page to a working token", async () => {
    const provider = new MemoryOAuthProvider(redirectUrl);
    const url = new URL(`${hub!.origin}/mcp`);
    const first = new Client({ name: "fresh client", version: "1.0.0" });
    await expect(first.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }))).rejects.toThrow(UnauthorizedError);
    expect(provider.client?.client_id).toMatch(/^ahc_/);
    expect(provider.authorizationUrl?.pathname).toBe("/auth/authorize");

    // A person signs in and approves in a real browser; the redirect carries the code.
    const context = await browser!.newContext();
    const page = await context.newPage();
    await page.goto(provider.authorizationUrl!.toString());
    await page.fill("#email", user.email);
    await page.fill("#password", user.password);
    await page.click("button[type=submit]");
    await page.getByText("This application registered itself").waitFor();
    // The SDK asks for the MCP endpoint as its resource (RFC 8707); the consent page names it.
    expect(provider.authorizationUrl!.searchParams.get("resource")).toBe(`${hub!.origin}/mcp`);
    await page.getByText(`${hub!.origin}/mcp`).first().waitFor();
    await Promise.all([page.waitForURL((u) => u.toString().startsWith(redirectUrl)), page.click("button[value=approve]")]);
    const code = new URL(page.url()).searchParams.get("code");
    expect(code).toBeTruthy();
    await context.close();

    const finishing = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await finishing.finishAuth(code!);
    expect(provider.saved?.access_token).toBeTruthy();
    // The token is bound to /mcp: the API refuses it.
    const claims = JSON.parse(Buffer.from(provider.saved!.access_token.split(".")[1]!, "base64url").toString());
    expect(claims.aud).toBe(`${hub!.origin}/mcp`);
    expect((await api("/v1/me", {}, provider.saved!.access_token)).status).toBe(401);

    const client = new Client({ name: "fresh client", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    const math = await client.callTool({ name: "math_evaluate", arguments: { expression: "2 * 512" } });
    expect(math.structuredContent).toMatchObject({ success: true, result: { result: 1024 } });
    await client.close();
  }, 90_000);

  it("the MCP Inspector's command line lists the tools and calls one", async () => {
    const inspector = path.join(root, "node_modules/.bin/mcp-inspector");
    const catalog = path.join(stateDir!, "inspector-catalog.json");
    const env = { ...process.env, MCP_CATALOG_PATH: catalog };
    const common = ["--cli", `${hub!.origin}/mcp`, "--transport", "http", "--header", `Authorization: Bearer ${apiKey}`];
    const listed = await run(inspector, [...common, "--method", "tools/list"], { env, timeout: 60_000 });
    expect(listed.stdout).toContain("math_evaluate");
    const called = await run(inspector, [...common, "--method", "tools/call", "--tool-name", "math_evaluate", "--tool-arg", "expression=6*7"], {
      env,
      timeout: 60_000,
    });
    expect(called.stdout).toContain('"success": true');
    expect(called.stdout).toMatch(/"result": 42/);
  }, 120_000);
});

/** An OAuth client as an MCP client keeps it: registration, PKCE verifier and tokens, in memory. */
class MemoryOAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  authorizationUrl?: URL;
  private verifier = "";
  constructor(readonly redirectUrl: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "E2E MCP client",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}
