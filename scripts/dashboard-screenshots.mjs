#!/usr/bin/env node
// Writes a screenshot of every dashboard page, at desktop and phone widths, to a folder (default
// .tmp/screenshots, not committed) for a reviewer: `npm run screenshots [-- <folder>]`.
// Starts its own hub on a throwaway state directory and signs up a fresh person.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { freePort } from "../bench/lib.mjs";
import { startHub } from "./start.mjs";

const folder = path.resolve(process.argv[2] ?? ".tmp/screenshots");
mkdirSync(folder, { recursive: true });
const state = mkdtempSync(path.join(os.tmpdir(), "hub-screens-"));
const hub = await startHub({ port: await freePort(), persistTo: state, stdio: "pipe", bootstrap: false });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--headless=new", "--no-sandbox"] });
try {
  const widths = { desktop: 1280, phone: 375 };
  for (const [label, width] of Object.entries(widths)) {
    const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
    const shot = (name) => page.screenshot({ path: path.join(folder, `${name}-${label}.png`), fullPage: true });
    await page.goto(hub.origin);
    await shot("sign-in");
    await page.getByLabel("Email", { exact: true }).nth(1).fill(`reviewer.${label}.${Date.now()}@example.com`);
    await page.getByLabel("Password (at least 8 characters)").fill("correct horse battery");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(`${hub.origin}/`);
    await shot("overview");
    await page.goto(`${hub.origin}/app/keys`);
    await page.getByLabel("Name").fill("Reviewer key");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.locator("#new-key-secret").waitFor();
    await shot("api-keys");
  }
  console.log(`screenshots in ${folder}`);
} finally {
  await browser.close();
  await hub.stop();
  rmSync(state, { recursive: true, force: true });
}
