import { describe, expect, it } from "vitest";
import { call } from "../helpers/api";
import { newWorkflow } from "../helpers/runs";
import tenSets from "../fixtures/n8n/webhook-ten-sets-if.json";
import { Browser, newEmail } from "./browser";

async function signedIn() {
  const browser = new Browser();
  await browser.register(newEmail());
  return browser;
}

const importForm = async (browser: Browser, document: string) => {
  const form = { step: "import", document, connections: "", csrf_token: await browser.csrf("/app/workflows/import") };
  const response = await browser.request("/app/workflows/import", { form });
  return { status: response.status, html: await response.text() };
};

describe("exporting and importing on the dashboard", () => {
  it("downloads a workflow's bundle from its page and imports it through the form", async () => {
    const browser = await signedIn();
    const key = await browser.apiKey();
    const workflow = await newWorkflow(key, { workflow_name: "Weekly digest", steps: [{ id: "greet", type: "set", values: { greeting: "hi" } }] });
    const pageHtml = await (await browser.request(`/app/workflows/${workflow.id}`)).text();
    expect(pageHtml).toContain(`href="/app/workflows/${workflow.id}/export"`);

    const download = await browser.request(`/app/workflows/${workflow.id}/export`);
    expect(download.status).toBe(200);
    expect(download.headers.get("Content-Disposition")).toContain("attachment");
    const bundle = await download.text();
    expect(JSON.parse(bundle)).toMatchObject({ format: "hub.workflow/1", workflow: { name: "Weekly digest" } });

    const listHtml = await (await browser.request("/app/workflows")).text();
    expect(listHtml).toContain('href="/app/workflows/import"');
    const imported = await importForm(browser, bundle);
    expect(imported.status).toBe(200);
    expect(imported.html).toContain("1 workflow was created.");
    const [, id] = imported.html.match(/href="\/app\/workflows\/(\d+)">Weekly digest</) ?? [];
    expect(Number(id)).toBeGreaterThan(workflow.id);
  });

  it("tells an n8n export from a bundle by its content", async () => {
    const browser = await signedIn();
    const imported = await importForm(browser, JSON.stringify(tenSets));
    expect(imported.status).toBe(200);
    expect(imported.html).toContain("1 workflow was created.");
  });

  it("shows what is wrong with what was pasted, naming the field", async () => {
    const browser = await signedIn();
    const neither = await importForm(browser, JSON.stringify({ hello: "world" }));
    expect(neither.status).toBe(422);
    expect(neither.html).toContain("neither a workflow bundle");
    const wrongFormat = await importForm(browser, JSON.stringify({ format: "something/2", workflow: {} }));
    expect(wrongFormat.status).toBe(422);
    expect(wrongFormat.html).toContain("<code>bundle.format</code>");
    const broken = await importForm(browser, "{not json");
    expect(broken.status).toBe(422);
    expect(broken.html).toContain("does not parse");
  });
});

describe("addresses that do not exist", () => {
  it("answers a browser with a page and a way back, and API callers with a problem", async () => {
    const page = await call("/app/no-such-page", { headers: { Accept: "text/html,application/xhtml+xml" } });
    expect(page.status).toBe(404);
    expect(page.headers.get("Content-Type")).toContain("text/html");
    expect(await page.text()).toContain('href="/"');
    const root = await call("/app", { headers: { Accept: "text/html" } });
    expect(root.status).toBe(302);
    expect(root.headers.get("Location")).toBe("/");
    const asJson = await call("/app/no-such-page", { headers: { Accept: "application/json" } });
    expect(asJson.status).toBe(404);
    expect(asJson.headers.get("Content-Type")).toContain("application/problem+json");
    // API paths stay problems whatever the caller accepts (an unknown one is behind the credential check).
    const api = await call("/v1/no-such-thing", { headers: { Accept: "text/html" } });
    expect(api.headers.get("Content-Type")).toContain("application/problem+json");
  });
});
