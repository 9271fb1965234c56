// End to end: a new person goes through the whole dashboard in a real browser (Debian's chromium
// via playwright-core) against a real `wrangler dev` hub and the reference MCP server: register,
// create an API key, connect the MCP server, run one of its tools, chat with the agent (which
// calls the tool; the answer shows as it streams, a reload mid-turn picks the turn up, Stop ends
// it), turn the chat into a workflow, run it, deploy it as an agent on an interval
// and watch the agent's health count its runs. Screenshots of each page go to .tmp/dashboard/.
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEverything } from "../../bench/lib.mjs";
import { startBrowserHub } from "./browser-hub.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const SHOTS = path.join(root, ".tmp", "dashboard");

let setup: Awaited<ReturnType<typeof startBrowserHub>> | undefined;
let mcp: Awaited<ReturnType<typeof startEverything>> | undefined;
beforeAll(async () => {
  mcp = await startEverything();
  setup = await startBrowserHub("walkthrough", SHOTS);
}, 180_000);

afterAll(async () => {
  await setup?.stop();
  mcp?.stop();
}, 60_000);

/** Reloads until the text shows (a page without script shows news on reload). */
async function reloadUntil(page: Page, text: string | RegExp, seconds: number) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    if ((await page.getByText(text).count()) > 0) return;
    if (Date.now() > deadline) throw new Error(`"${text}" did not show within ${seconds} s.\n${setup!.log(2000)}`);
    await new Promise((r) => setTimeout(r, 1000));
    await page.reload();
  }
}

describe("a new person's first session in the dashboard", () => {
  it("registers, makes a key, connects the MCP server, chats, saves the chat as a workflow, runs it and deploys it as an agent", async () => {
    const context = await setup!.browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `walkthrough-${name}.png`), fullPage: true });
    const email = `ada.${randomBytes(4).toString("hex")}@example.com`;

    // Register.
    await page.goto(setup!.hub.origin);
    await page.getByLabel("Email", { exact: true }).nth(1).fill(email);
    await page.getByLabel("Password (at least 8 characters)").fill("correct horse battery");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: `Welcome, ${email}` }).waitFor();

    // An API key, shown once, that works.
    await page.getByRole("link", { name: "API keys" }).first().click();
    await page.getByLabel("Name").fill("Laptop");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.locator("#new-key-secret").innerText()).trim();
    expect((await fetch(`${setup!.hub.origin}/v1/me`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200);

    // Connect the reference MCP server: test first, then save.
    await page.getByRole("link", { name: "Connections" }).first().click();
    await page.getByLabel("Platform", { exact: true }).selectOption("mcp");
    await page.getByRole("button", { name: "Choose" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Everything");
    await page.getByLabel(/^URL/i).fill(mcp!.url);
    await page.getByRole("button", { name: "Test" }).click();
    await page.getByText(/echo/).first().waitFor();
    await shot("connection-test");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("heading", { name: "Connections", level: 1 }).waitFor();
    await page.getByText("Everything").first().waitFor();
    await shot("connections");

    // Run one of its tools from the tools page.
    await page.getByRole("link", { name: "Tools" }).first().click();
    await page.getByLabel("Search tools").fill("echo");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("link", { name: /^Open mcp_\d+_echo$/ }).click();
    await page.getByLabel(/^message/i).fill("hello from the dashboard");
    // The page's script streams the run's events live (SSE) instead of posting the form.
    const streamed = page.waitForResponse((r) => r.url().endsWith("/stream") && r.request().method() === "POST");
    await page.getByRole("button", { name: "Run" }).click();
    expect((await streamed).headers()["content-type"]).toContain("text/event-stream");
    await page.locator("#live-events").getByText("Finished.").waitFor();
    await page.getByText("hello from the dashboard").last().waitFor();
    await shot("tool-run");
    const visited = [page.url()];

    // Chat: the agent calls the MCP tool. The script posts the message to …/send and shows the
    // turn from its event stream; once it has finished, the list shows the stored answer as the
    // server renders it, without a reload.
    await page.getByRole("link", { name: "Chat" }).first().click();
    await page.getByRole("button", { name: "New conversation" }).click();
    await page.getByRole("textbox", { name: "Message" }).fill('please echo "spring campaign is live"');
    const sent = page.waitForResponse((r) => /\/app\/conversations\/\d+\/send$/.test(r.url()) && r.request().method() === "POST");
    await page.getByRole("button", { name: "Send" }).click();
    expect((await sent).headers()["content-type"]).toContain("text/event-stream");
    await page
      .locator(".message.assistant .markdown")
      .getByText(/spring campaign is live/)
      .waitFor();
    await page.getByText(/^Tool call: mcp_\d+_echo \(succeeded/).waitFor();
    await page.locator("#chat-status").getByText("The answer is complete.").waitFor();
    expect(await page.getByRole("textbox", { name: "Message" }).inputValue()).toBe("");
    expect(await page.getByRole("button", { name: "Stop answering" }).isDisabled()).toBe(true);
    // Kept: a reload shows the same.
    await page.reload();
    await page
      .locator(".message.assistant .markdown")
      .getByText(/spring campaign is live/)
      .waitFor();
    await shot("chat");
    const chatUrl = page.url();
    visited.push(chatUrl);

    // A slower turn: its tool call shows as a row while it runs, a reload in the middle picks the
    // turn up from its first event, and Stop ends it with the tool call kept.
    await page.getByRole("link", { name: "Chat" }).first().click();
    await page.getByRole("button", { name: "New conversation" }).click();
    await page.getByRole("textbox", { name: "Message" }).fill("wait seconds: 6");
    await page.getByRole("button", { name: "Send" }).click();
    const live = page.locator(".message.assistant.live");
    await live
      .locator(".tool-rows li")
      .getByText(/^running…/)
      .waitFor();
    expect(await live.locator(".tool-rows strong").innerText()).toBe("wait");
    await page.reload();
    await live
      .locator(".tool-rows li")
      .getByText(/^running…/)
      .waitFor();
    expect(await page.locator(".message.user").last().innerText()).toContain("wait seconds: 6");
    const stop = page.getByRole("button", { name: "Stop answering" });
    expect(await stop.isEnabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Send" }).isDisabled()).toBe(true);
    await shot("chat-running");
    await stop.click();
    await page.locator("#chat-status").getByText("Stopped: the answer so far is kept.").waitFor();
    await page.getByText(/^Tool call: wait \(succeeded/).waitFor();
    await page.getByText(/^Stopped before the answer was finished/).waitFor();
    expect(await page.getByRole("button", { name: "Send" }).isEnabled()).toBe(true);
    await page.reload();
    await page.getByText(/^Stopped before the answer was finished/).waitFor();
    visited.push(page.url());
    await page.goto(chatUrl);

    // The chat becomes a workflow, which runs.
    await page.getByRole("button", { name: "Turn this chat into a workflow" }).click();
    await page.getByRole("button", { name: "Run workflow" }).waitFor();
    await shot("workflow");
    const workflowUrl = page.url();
    expect(workflowUrl).toMatch(/\/app\/workflows\/\d+$/);
    await page.getByRole("button", { name: "Run workflow" }).click();
    await page.waitForURL(/\/app\/executions\//);
    await reloadUntil(page, /succeeded/i, 30);
    await shot("execution");
    visited.push(page.url(), workflowUrl);

    // Deployed as an agent every 5 seconds, its health counts the runs.
    await page.goto(workflowUrl);
    await page.getByRole("link", { name: "Deploy as an agent" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Echo every few seconds");
    await page.getByLabel(/Every N seconds/).check();
    await page.getByLabel("Interval in seconds").fill("5");
    await page.getByRole("button", { name: "Deploy agent" }).click();
    await page.getByText(/copy it now/i).waitFor();
    const agentUrl = page.url();
    const deadline = Date.now() + 60_000;
    for (;;) {
      const agentId = agentUrl.match(/\/app\/agents\/([^/?#]+)/)?.[1];
      const agent = (await (await fetch(`${setup!.hub.origin}/v1/agents/${agentId}`, { headers: { Authorization: `Bearer ${key}` } })).json()) as {
        monitoring?: { success_count: number };
      };
      if ((agent.monitoring?.success_count ?? 0) >= 2) break;
      if (Date.now() > deadline) throw new Error(`The agent did not run twice within 60 s: ${JSON.stringify(agent)}\n${setup!.log(2000)}`);
      await new Promise((r) => setTimeout(r, 2000));
    }
    await page.goto(agentUrl);
    await page
      .getByText(/100(\.0)?\s*%/)
      .first()
      .waitFor();
    await shot("agent");
    visited.push(agentUrl);

    // Every page the person saw fits a phone's 375 px without sideways scrolling.
    await page.setViewportSize({ width: 375, height: 812 });
    const sections = ["/", "/app/connections", "/app/connections/new?platform=mcp", "/app/tools", "/app/conversations", "/app/workflows"];
    const more = ["/app/agents", `/app/agents/new?workflow_id=${workflowUrl.split("/").pop()}`, "/app/templates", "/app/audit", "/app/keys", "/app/apps"];
    for (const url of [...sections, ...more].map((route) => `${setup!.hub.origin}${route}`).concat(visited)) {
      expect((await page.goto(url))?.status(), url).toBe(200);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), url).toBeLessThanOrEqual(375);
    }
    await context.close();
  }, 240_000);
});
