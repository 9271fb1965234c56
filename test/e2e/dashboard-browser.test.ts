// End to end: the dashboard in a real browser (Debian's chromium via playwright-core) on a
// 375 px wide screen, against a real `wrangler dev` hub: register, create an API key (its secret
// shown once, working against the API), revoke it, sign out. Screenshots go to .tmp/dashboard/.
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBrowserHub } from "./browser-hub.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const SHOTS = path.join(root, ".tmp", "dashboard");

let setup: Awaited<ReturnType<typeof startBrowserHub>> | undefined;

beforeAll(async () => {
  setup = await startBrowserHub("dashboard", SHOTS);
}, 180_000);

afterAll(async () => {
  await setup?.stop();
}, 60_000);

describe("the dashboard in a browser", () => {
  it("a new person registers, makes an API key that works, revokes it and signs out, on a phone-sized screen", async () => {
    const context = await setup!.browser.newContext({ viewport: { width: 375, height: 812 } });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const email = `grace.${randomBytes(4).toString("hex")}@example.com`;
    const fitsTheScreen = async () => expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

    await page.goto(setup!.hub.origin);
    await page.getByRole("heading", { name: "Create an account" }).waitFor();
    await fitsTheScreen();
    await page.screenshot({ path: path.join(SHOTS, "sign-in.png"), fullPage: true });
    // Every field is found by its label, as a screen reader would.
    await page.getByLabel("Email", { exact: true }).nth(1).fill(email);
    await page.getByLabel("Password (at least 8 characters)").fill("correct horse battery");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: `Welcome, ${email}` }).waitFor();
    await fitsTheScreen();
    await page.screenshot({ path: path.join(SHOTS, "overview.png"), fullPage: true });

    await page.getByRole("link", { name: "API keys" }).first().click();
    await page.getByRole("heading", { name: "API keys", level: 1 }).waitFor();
    await page.getByLabel("Name").fill("Reporting script");
    await page.getByRole("checkbox", { name: /connections:write/ }).uncheck();
    // The keyboard reaches the button and presses it.
    await page.getByRole("button", { name: "Create key" }).focus();
    await page.keyboard.press("Enter");
    const secret = (await page.locator("#new-key-secret").innerText()).trim();
    expect(secret).toMatch(/^ahk_test_/);
    await fitsTheScreen();
    await page.screenshot({ path: path.join(SHOTS, "api-keys.png"), fullPage: true });
    const me = await fetch(`${setup!.hub.origin}/v1/me`, { headers: { Authorization: `Bearer ${secret}` } });
    expect(me.status, setup!.log(2000)).toBe(200);
    expect(((await me.json()) as { email: string }).email).toBe(email);

    // Back on the page later: the secret is gone for good, only its prefix is listed.
    await page.goto(`${setup!.hub.origin}/app/keys`);
    expect(await page.locator("main").innerText()).not.toContain(secret);
    await page.getByRole("button", { name: "Revoke Reporting script" }).click();
    await page.getByText("No active key.").waitFor();
    expect((await fetch(`${setup!.hub.origin}/v1/me`, { headers: { Authorization: `Bearer ${secret}` } })).status).toBe(401);

    await page.getByRole("button", { name: `Sign out ${email}` }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await page.goto(`${setup!.hub.origin}/app/keys`);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await context.close();
  }, 120_000);
});
