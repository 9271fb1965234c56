#!/usr/bin/env node
// Writes a screenshot of every dashboard page, at desktop and phone widths, to a folder (default
// .tmp/screenshots, not committed) for a reviewer: `npm run screenshots [-- <folder>]`.
// Starts its own hub (on a throwaway state directory) and the reference MCP server, signs up a
// fresh person, gives them something on every page through the API, then visits each page.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { TEN_SET_STEPS, freePort, startEverything } from "../bench/lib.mjs";
import { startHub } from "./start.mjs";

const folder = path.resolve(process.argv[2] ?? ".tmp/screenshots");
mkdirSync(folder, { recursive: true });
const state = mkdtempSync(path.join(os.tmpdir(), "hub-screens-"));
const mcp = await startEverything();
const hub = await startHub({ port: await freePort(), persistTo: state, stdio: "pipe", bootstrap: false });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--headless=new", "--no-sandbox"] });

/** Registers in the browser, makes a key on the keys page, and fills every section through the API. */
async function signUpWithContent(page, label) {
  await page.goto(hub.origin);
  await page.getByLabel("Email", { exact: true }).nth(1).fill(`reviewer.${label}.${Date.now()}@example.com`);
  await page.getByLabel("Password (at least 8 characters)").fill("correct horse battery");
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(`${hub.origin}/`);
  await page.goto(`${hub.origin}/app/keys`);
  await page.getByLabel("Name").fill("Reviewer key");
  await page.getByRole("button", { name: "Create key" }).click();
  const key = ((await page.locator("#new-key-secret").textContent()) ?? "").trim();
  const api = async (route, body) => {
    const response = await fetch(`${hub.origin}${route}`, {
      method: body ? "POST" : "GET",
      headers: { Authorization: `Bearer ${key}`, ...(body ? { "Content-Type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!response.ok) throw new Error(`${route}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  const connection = await api("/v1/connections", { platform: "mcp", name: "Everything", config: { url: mcp.url } });
  await api("/v1/tools/execute", { name: `mcp_${connection.connection_id}_echo`, arguments: { message: "hello" } });
  const conversation = await api("/v1/conversations", { title: "Echo the launch" });
  await api(`/v1/conversations/${conversation.id}/messages`, { content: 'please echo "spring campaign is live"' });
  const steps = [
    ...TEN_SET_STEPS.slice(0, 3),
    { id: "echo", type: "tool", tool: `mcp_${connection.connection_id}_echo`, arguments: { message: "v1 is {{v1}}" } },
  ];
  const workflow = await api("/v1/workflows", { workflow_name: "Launch echo", description: "Sets values, then echoes one", steps });
  const execution = await api(`/v1/workflows/${workflow.id}/execute`, { input_data: {} });
  const agent = await api("/v1/agents/deploy", { workflow_id: workflow.id, schedule_config: { type: "interval", interval_seconds: 3600 } });
  await api(`/v1/agents/${agent.agent_id}/execute`, {});
  return { connection, conversation, workflow, execution, agent };
}

try {
  const widths = { desktop: 1280, phone: 375 };
  for (const [label, width] of Object.entries(widths)) {
    const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
    const shot = (name) => page.screenshot({ path: path.join(folder, `${name}-${label}.png`), fullPage: true });
    await page.goto(hub.origin);
    await shot("sign-in");
    const made = await signUpWithContent(page, label);
    await shot("api-keys");
    const pages = {
      overview: "/",
      connections: "/app/connections",
      "connection-new": "/app/connections/new?platform=mcp",
      connection: `/app/connections/${made.connection.connection_id}`,
      tools: "/app/tools",
      tool: `/app/tools/mcp_${made.connection.connection_id}_echo`,
      conversations: "/app/conversations",
      conversation: `/app/conversations/${made.conversation.id}`,
      workflows: "/app/workflows",
      workflow: `/app/workflows/${made.workflow.id}`,
      execution: `/app/executions/${made.execution.execution_id ?? made.execution.id}`,
      agents: "/app/agents",
      "agent-new": `/app/agents/new?workflow_id=${made.workflow.id}`,
      agent: `/app/agents/${made.agent.agent_id}`,
      templates: "/app/templates",
      audit: "/app/audit",
      usage: "/app/usage",
      apps: "/app/apps",
    };
    for (const [name, route] of Object.entries(pages)) {
      const response = await page.goto(`${hub.origin}${route}`);
      if (!response?.ok()) throw new Error(`${route} answered ${response?.status()}`);
      await shot(name);
    }
  }
  console.log(`screenshots in ${folder}`);
} finally {
  await browser.close();
  await hub.stop();
  mcp.stop();
  rmSync(state, { recursive: true, force: true });
}
