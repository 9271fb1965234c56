// End to end: the parts of the dashboard that issue #27 changed, in a real browser (Debian's
// chromium via playwright-core) against a real `wrangler dev` hub: "Run this step" on a code step
// as typed, the placeholder warning before saving, the chat's markdown (with HTML in a message
// left inert), and a template's "Use" asking for its connections and variables first.
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBrowserHub } from "./browser-hub.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const SHOTS = path.join(root, ".tmp", "dashboard");

let setup: Awaited<ReturnType<typeof startBrowserHub>> | undefined;

beforeAll(async () => {
  setup = await startBrowserHub("editor", SHOTS);
}, 180_000);

afterAll(async () => {
  await setup?.stop();
}, 60_000);

async function register(page: Page) {
  await page.goto(setup!.hub.origin);
  await page
    .getByLabel("Email", { exact: true })
    .nth(1)
    .fill(`ada.${randomBytes(4).toString("hex")}@example.com`);
  await page.getByLabel("Password (at least 8 characters)").fill("correct horse battery");
  await page.getByRole("button", { name: "Create account" }).click();
  await page.getByRole("heading", { name: /^Welcome, / }).waitFor();
}

const codeStep = {
  id: "total",
  type: "code",
  code: 'console.log("items", input.items.length);\nreturn input.items.reduce((sum, item) => sum + item.price, 0);',
};

describe("the step editor, chat and templates in a browser", () => {
  it("runs a typed code step, warns about a placeholder with no value before saving, then saves anyway", async () => {
    const context = await setup!.browser.newContext({ viewport: { width: 1024, height: 900 } });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    await register(page);

    await page.goto(`${setup!.hub.origin}/app/workflows`);
    await page.getByLabel("Name").fill("Order totals");
    await page.getByLabel("Steps (JSON)").fill(JSON.stringify([{ id: "greet", type: "set", values: { greeting: "Hi" } }]));
    await page.getByRole("button", { name: "Create workflow" }).click();
    await page.getByRole("heading", { name: "Order totals", level: 1 }).waitFor();
    const workflowUrl = page.url();

    // A code step typed into the editor runs before anything is saved.
    const editor = page.locator("#edit-workflow-steps");
    await editor.fill(JSON.stringify([{ id: "greet", type: "set", values: { greeting: "Hi" } }, codeStep], null, 2));
    await page.getByLabel("Code step id").fill("total");
    await page.getByLabel("Step input (JSON)").fill('{"items": [{"price": 3}, {"price": 4.5}]}');
    await page.getByRole("button", { name: "Run this step" }).click();
    const result = page.locator("#edit-workflow-test-result");
    await result.getByText('Step "total" succeeded').waitFor();
    expect(await result.locator("pre").first().innerText()).toBe("7.5");
    expect(await result.locator("pre").nth(1).innerText()).toBe("items 2");
    expect(await editor.inputValue()).toContain('"id": "total"');
    await page.screenshot({ path: path.join(SHOTS, "run-this-step.png"), fullPage: true });

    // The code's own error comes back with its line.
    const failing = { ...codeStep, code: "const items = input.items;\nreturn items.map((i) => i.price.toFixed(2));" };
    await editor.fill(JSON.stringify([failing]));
    await page.getByLabel("Step input (JSON)").fill('{"items": [{"name": "no price"}]}');
    await page.getByRole("button", { name: "Run this step" }).click();
    await result.getByText('Step "total" failed').waitFor();
    expect(await result.innerText()).toMatch(/TypeError: .*\(line 2\)/);

    // Saving a step whose placeholder has no value warns first; nothing is saved until "Save anyway".
    await editor.fill(JSON.stringify([{ id: "greet", type: "set", values: { text: "{{steps.later.result}}" } }]));
    await page.getByRole("button", { name: "Save changes" }).click();
    const warning = page.locator("#placeholder-warnings");
    await warning.getByText('{{steps.later.result}} has no value: no step "later" runs before this one.').waitFor();
    expect(await page.getByText("version 1").count()).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(SHOTS, "placeholder-warning.png"), fullPage: true });
    await page.getByRole("button", { name: "Save anyway" }).click();
    await page.getByText("Changes saved.").waitFor();
    expect(page.url()).toBe(`${workflowUrl}?saved=1`);
    await page
      .getByText(/version 2/)
      .first()
      .waitFor();
    await context.close();
  }, 120_000);

  it("renders the assistant's markdown, leaving HTML and javascript: links in it inert", async () => {
    const context = await setup!.browser.newContext({ viewport: { width: 1024, height: 900 } });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    await register(page);
    await page.goto(`${setup!.hub.origin}/app/conversations`);
    await page.getByRole("button", { name: "New conversation" }).click();
    // The local provider answers with the tool's result: what the message put in comes back in the answer.
    await page
      .getByRole("textbox", { name: "Message" })
      .fill('text template template: "<img src=x onerror=window.pwned=1> <script>window.pwned=2</script> **bold** [x](javascript:window.pwned=3)"');
    await page.getByRole("button", { name: "Send" }).click();
    const answer = page.locator(".message.assistant .markdown").last();
    const deadline = Date.now() + 30_000;
    while ((await answer.count()) === 0) {
      if (Date.now() > deadline) throw new Error(`No answer.\n${setup!.log(2000)}`);
      await new Promise((r) => setTimeout(r, 1000));
      await page.reload();
    }
    expect(await answer.locator("code").first().innerText()).toBe("text_template");
    expect(await answer.locator("strong").innerText()).toBe("bold");
    expect(await answer.locator("em").innerText()).toContain("Answered by the local provider");
    // The HTML is shown as text; no element, handler or link came of it.
    expect(await answer.innerText()).toContain("<img src=x onerror=window.pwned=1>");
    expect(await answer.locator("img, script, a").count()).toBe(0);
    expect(await answer.innerText()).not.toContain("`text_template`");
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    await page.screenshot({ path: path.join(SHOTS, "chat-markdown.png"), fullPage: true });
    await context.close();
  }, 120_000);

  it("a template's Use asks for its connections and variables, then makes the workflow", async () => {
    const context = await setup!.browser.newContext({ viewport: { width: 375, height: 812 } });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    await register(page);
    await page.goto(`${setup!.hub.origin}/app/templates`);
    await page.getByRole("link", { name: "Use Lead form → HubSpot contact → Slack alert", exact: true }).click();
    await page.getByRole("heading", { name: "Use: Lead form → HubSpot contact → Slack alert" }).waitFor();
    await page.getByRole("link", { name: "Connect Slack" }).waitFor();
    const channel = page.getByLabel("sales_channel");
    expect(await channel.inputValue()).toBe("#sales");
    await channel.fill("#new-leads");
    await page.screenshot({ path: path.join(SHOTS, "template-use.png"), fullPage: true });
    await page.getByRole("button", { name: "Use", exact: true }).click();
    await page.getByRole("heading", { name: "Lead form → HubSpot contact → Slack alert", level: 1 }).waitFor();
    expect(page.url()).toMatch(/\/app\/workflows\/\d+$/);
    expect(await page.locator("#run-input").inputValue()).toContain('"sales_channel": "#new-leads"');
    await context.close();
  }, 120_000);
});
