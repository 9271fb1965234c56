// End to end: a real `wrangler dev` hub, a real browser (Debian's chromium driven by
// playwright-core) and a real OAuth client redirect target, walking the authorization code
// flow with PKCE the way a person and a third-party app would.
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type Page, type Response as PwResponse } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startHub } from "../../scripts/start.mjs";
import { freePort } from "../../scripts/free-port.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const APP_NAME = "Campaign Reporter";
const STEP_TIMEOUT = 30_000;

type Hub = Awaited<ReturnType<typeof startHub>>;

interface Hit {
  path: string;
  query: URLSearchParams;
}

let hub: Hub | undefined;
let hubLog = "";
let hubLogDropped = 0; // characters of wrangler's output no longer kept in hubLog
let stateDir: string | undefined;
let browser: Browser | undefined;
let callbackServer: Server | undefined;
let callbackOrigin = "";
let redirectUri = "";
const hits: Hit[] = [];

const user = {
  email: `ada.${randomBytes(4).toString("hex")}@example.com`,
  password: `pw-${randomBytes(12).toString("base64url")}`,
  name: "Ada Lovelace",
};
let clientId = "";
let clientSecret = "";

/** PKCE (RFC 7636): a 43-character verifier from the unreserved set, and its S256 challenge. */
function pkcePair() {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  return { verifier, challenge };
}

function authorizeUrl(params: Record<string, string>): string {
  const url = new URL("/auth/authorize", hub!.origin);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
}

function authorizeParams(overrides: Record<string, string> = {}) {
  const pkce = pkcePair();
  const state = randomBytes(16).toString("base64url");
  const params = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: "data:read",
    state,
    code_challenge: pkce.challenge,
    code_challenge_method: "S256",
    ...overrides,
  };
  return { params, state, verifier: pkce.verifier };
}

const isAuthorizePost = (response: PwResponse) => response.request().method() === "POST" && new URL(response.url()).pathname === "/auth/authorize";

const isCallback = (url: URL) => url.origin === callbackOrigin && url.pathname === "/callback";

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser!.newContext();
  context.setDefaultTimeout(STEP_TIMEOUT);
  context.setDefaultNavigationTimeout(STEP_TIMEOUT);
  return { context, page: await context.newPage() };
}

/** Fills the sign-in form and submits it; resolves with the hub's answer to the POST. */
async function signIn(page: Page, email: string, password: string): Promise<PwResponse> {
  await page.locator("#email").fill(email);
  await page.locator("#password").fill(password);
  const [response] = await Promise.all([page.waitForResponse(isAuthorizePost), page.getByRole("button", { name: "Sign in" }).click()]);
  await page.waitForLoadState("load");
  return response;
}

/** What the page says went wrong, for assertion messages. */
async function pageAlert(page: Page): Promise<string> {
  const alert = page.getByRole("alert");
  return (await alert.count()) ? `page says: ${await alert.first().innerText()}` : `page title: ${await page.title()}`;
}

/** Opens the authorize URL, checks the sign-in page, signs in and waits for the consent screen. */
async function reachConsent(page: Page, params: Record<string, string>) {
  const opened = await page.goto(authorizeUrl(params));
  expect(opened?.status()).toBe(200);
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  expect(await page.locator("main").innerText()).toContain(`${APP_NAME} wants to connect to your Agent Automation Hub account`);
  const answer = await signIn(page, user.email, user.password);
  expect(answer.status(), `sign-in answered ${answer.status()}; ${await pageAlert(page)}`).toBe(200);
  await page.getByRole("heading", { name: `Authorize ${APP_NAME}` }).waitFor();
}

async function tokenRequest(form: Record<string, string>) {
  const response = await fetch(`${hub!.origin}/v1/auth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

async function getMe(accessToken: string) {
  const response = await fetch(`${hub!.origin}/v1/me`, { headers: { Authorization: `Bearer ${accessToken}` } });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

beforeAll(async () => {
  // The OAuth client's redirect target: records every request, answers "ok".
  callbackServer = createHttpServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    hits.push({ path: url.pathname, query: url.searchParams });
    res.writeHead(url.pathname === "/callback" ? 200 : 404, { "Content-Type": "text/plain" });
    res.end(url.pathname === "/callback" ? "ok" : "not found");
  });
  await new Promise<void>((resolve, reject) => {
    callbackServer!.once("error", reject);
    callbackServer!.listen(0, "127.0.0.1", () => resolve());
  });
  callbackOrigin = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}`;
  redirectUri = `${callbackOrigin}/callback`;

  stateDir = mkdtempSync(path.join(os.tmpdir(), "hub-e2e-"));
  hub = await startHub({ port: await freePort(), persistTo: stateDir, stdio: "pipe", bootstrap: false });
  // Keep the pipes drained (a full pipe would stall wrangler) and keep a tail for failures.
  const keep = (chunk: Buffer) => {
    hubLog += chunk.toString();
    if (hubLog.length > 40_000) {
      hubLogDropped += hubLog.length - 20_000;
      hubLog = hubLog.slice(-20_000);
    }
  };
  hub.child.stdout?.on("data", keep);
  hub.child.stderr?.on("data", keep);

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });

  const registered = await fetch(`${hub.origin}/v1/auth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(user),
  });
  expect(registered.status).toBe(201);
  const { access_token: sessionToken } = (await registered.json()) as { access_token: string };

  const created = await fetch(`${hub.origin}/v1/auth/apps`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${sessionToken}` },
    body: JSON.stringify({ name: APP_NAME, redirect_uris: [redirectUri], scopes: ["data:read", "workflow:execute"] }),
  });
  expect(created.status).toBe(201);
  ({ client_id: clientId, client_secret: clientSecret } = (await created.json()) as { client_id: string; client_secret: string });
  expect(clientId).toBeTruthy();
  expect(clientSecret).toBeTruthy();
}, 180_000);

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  await hub?.stop();
  await new Promise<void>((resolve) => (callbackServer ? callbackServer.close(() => resolve()) : resolve()));
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

// On a failure: is the hub still answering, is the browser still there, and what did wrangler
// print since the last failure (its request log shows which requests reached the Worker).
let hubLogShownUpTo = 0;
beforeEach(({ onTestFailed }) => {
  onTestFailed(async () => {
    const started = Date.now();
    const health = await fetch(`${hub?.origin}/v1/openapi.json`, { signal: AbortSignal.timeout(5_000) }).then(
      (response) => `answered ${response.status} in ${Date.now() - started} ms`,
      (error: Error) => `did not answer (${error.name})`,
    );
    const fresh = hubLog.slice(Math.max(0, hubLogShownUpTo - hubLogDropped));
    hubLogShownUpTo = hubLogDropped + hubLog.length;
    console.error(
      `--- after the failure: hub ${health}; browser ${browser?.isConnected() ? "connected" : "gone"} ---\n` +
        `--- wrangler dev output since the last failure ---\n${fresh}`,
    );
  });
});

describe("OAuth authorize page in a real browser", () => {
  it("signs in, approves, and the app exchanges the code (PKCE) for working tokens; a replayed code is refused and revokes them", async () => {
    const { params, state, verifier } = authorizeParams();
    const { context, page } = await newPage();
    try {
      await reachConsent(page, params);
      const consent = await page.locator("main").innerText();
      expect(consent).toContain(`${APP_NAME} asks for access to your account ${user.email}`);
      const scopeCodes = await page.locator("ul.scopes code").allInnerTexts();
      expect(scopeCodes).toEqual(["data:read"]);
      expect(consent).not.toContain("workflow:execute");

      await page.getByRole("button", { name: "Approve" }).click();
      await page.waitForURL(isCallback);
      expect(await page.locator("body").innerText()).toBe("ok");

      const landed = new URL(page.url()).searchParams;
      expect(landed.get("state")).toBe(state);
      const code = landed.get("code");
      expect(code).toBeTruthy();
      expect(landed.has("error")).toBe(false);
      // The client's own server saw the same redirect.
      const hit = hits.find((h) => h.path === "/callback" && h.query.get("state") === state);
      expect(hit?.query.get("code")).toBe(code);

      const exchange = {
        grant_type: "authorization_code",
        code: code!,
        redirect_uri: redirectUri,
        client_id: clientId,
        client_secret: clientSecret,
        code_verifier: verifier,
      };
      const first = await tokenRequest(exchange);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ token_type: "Bearer", scope: "data:read" });
      expect(first.body.access_token).toEqual(expect.any(String));
      expect(first.body.refresh_token).toEqual(expect.any(String));

      const me = await getMe(first.body.access_token);
      expect(me.status).toBe(200);
      expect(me.body.email).toBe(user.email);
      expect(me.body.credential).toMatchObject({ kind: "oauth", client_id: clientId, scopes: ["data:read"] });

      // The same code again: refused, and the tokens from the first exchange are revoked.
      const replay = await tokenRequest(exchange);
      expect(replay.status).toBe(400);
      expect(replay.body.error).toBe("invalid_grant");
      const after = await getMe(first.body.access_token);
      expect(after.status).toBe(401);
      const refreshed = await tokenRequest({
        grant_type: "refresh_token",
        refresh_token: first.body.refresh_token,
        client_id: clientId,
        client_secret: clientSecret,
      });
      expect(refreshed.status).toBe(400);
      expect(refreshed.body.error).toBe("invalid_grant");
    } finally {
      await context.close();
    }
  });

  it("sends access_denied and the state back to the app when the user denies", async () => {
    const { params, state } = authorizeParams();
    const { context, page } = await newPage();
    try {
      await reachConsent(page, params);
      await page.getByRole("button", { name: "Deny" }).click();
      await page.waitForURL(isCallback);
      const landed = new URL(page.url()).searchParams;
      expect(landed.get("error")).toBe("access_denied");
      expect(landed.get("state")).toBe(state);
      expect(landed.has("code")).toBe(false);
      const hit = hits.find((h) => h.path === "/callback" && h.query.get("state") === state);
      expect(hit?.query.get("error")).toBe("access_denied");
      expect(hit?.query.has("code")).toBe(false);
    } finally {
      await context.close();
    }
  });

  it("shows an error and stays on the sign-in form after a wrong password", async () => {
    const { params, state } = authorizeParams();
    const { context, page } = await newPage();
    try {
      const url = authorizeUrl(params);
      await page.goto(url);
      await page.getByRole("heading", { name: "Sign in" }).waitFor();
      const answer = await signIn(page, user.email, `${user.password}-wrong`);
      expect(answer.status(), `sign-in answered ${answer.status()}; ${await pageAlert(page)}`).toBe(401);
      expect(answer.headers().location).toBeUndefined();

      const alert = page.getByRole("alert");
      await alert.waitFor();
      expect(await alert.innerText()).toBe("Wrong email or password.");
      expect(await page.getByRole("heading", { name: "Sign in" }).isVisible()).toBe(true);
      expect(await page.locator("#password").isVisible()).toBe(true);
      expect(await page.locator("#password").inputValue()).toBe("");
      expect(await page.locator("#email").inputValue()).toBe(user.email);
      expect(page.url()).toBe(url);
      expect(hits.some((h) => h.query.get("state") === state)).toBe(false);
    } finally {
      await context.close();
    }
  });

  it("shows its own error page (400) for an unregistered redirect_uri and never redirects there", async () => {
    const unregisteredPath = `/not-registered-${randomBytes(6).toString("hex")}`;
    const { params, state } = authorizeParams({ redirect_uri: `${callbackOrigin}${unregisteredPath}` });
    const { context, page } = await newPage();
    try {
      const url = authorizeUrl(params);
      const response = await page.goto(url);
      expect(response?.status()).toBe(400);
      expect(response?.headers().location).toBeUndefined();
      expect(response?.request().redirectedFrom()).toBeNull();
      await page.getByRole("heading", { name: "This authorization request cannot be completed" }).waitFor();
      expect(await page.getByRole("alert").innerText()).toBe("The redirect_uri is not registered for this application.");
      // The page loaded at the hub's own URL; nothing on it navigates (CSP forbids scripts; no refresh).
      expect(page.url()).toBe(url);
      expect(await page.locator('meta[http-equiv="refresh" i]').count()).toBe(0);
      expect(await page.locator("form").count()).toBe(0);
      expect(hits.some((h) => h.path === unregisteredPath || h.query.get("state") === state)).toBe(false);
    } finally {
      await context.close();
    }
  });

  it("renders the consent screen with the account, the scopes and the three choices (screenshot in .tmp/consent.png)", async () => {
    const { params } = authorizeParams({ scope: "data:read workflow:execute" });
    const { context, page } = await newPage();
    try {
      await page.setViewportSize({ width: 900, height: 700 });
      await reachConsent(page, params);
      expect(await page.title()).toBe(`Authorize ${APP_NAME} · Agent Automation Hub`);
      expect(await page.locator("ul.scopes code").allInnerTexts()).toEqual(["data:read", "workflow:execute"]);
      for (const name of ["Approve", "Deny", "Not you?"]) {
        expect(await page.getByRole("button", { name }).isVisible()).toBe(true);
      }
      expect(await page.locator("main").innerText()).toContain(`You will be sent back to ${new URL(callbackOrigin).host}.`);

      // Best effort: a picture for people to look at, never a reason to fail.
      try {
        const dir = path.join(root, ".tmp");
        mkdirSync(dir, { recursive: true });
        await page.screenshot({ path: path.join(dir, "consent.png"), fullPage: true });
      } catch (error) {
        console.warn(`consent screenshot not written: ${(error as Error).message}`);
      }
    } finally {
      await context.close();
    }
  });
});
