import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, json } from "../helpers/api";
import { Browser, newEmail } from "./browser";

async function signedIn() {
  const browser = new Browser();
  await browser.register(newEmail());
  return browser;
}

/** Posts the "Add a connection" form of a platform with the page's CSRF token. */
async function submitNew(browser: Browser, platform: string, step: "test" | "save", fields: Record<string, string>) {
  const csrf = await browser.csrf(`/app/connections/new?platform=${platform}`);
  return browser.request("/app/connections/new", { form: { csrf_token: csrf, platform, step, ...fields } });
}

async function saveMcp(browser: Browser, name: string, url = env.TEST_MCP_URL) {
  const saved = await submitNew(browser, "mcp", "save", { name, "config.url": url, "config.transport": "auto" });
  expect(saved.status).toBe(303);
  return Number(saved.headers.get("Location")!.match(/saved=(\d+)/)![1]);
}

async function act(browser: Browser, id: number, step: string, from = "list") {
  const csrf = await browser.csrf("/app/connections");
  return browser.request(`/app/connections/${id}`, { form: { csrf_token: csrf, step, from } });
}

describe("the connections pages", () => {
  it("chooses a platform and builds its form from the config schema, secrets as password inputs", async () => {
    const browser = await signedIn();
    expect((await call("/app/connections")).status).toBe(303);
    const list = await (await browser.request("/app/connections")).text();
    expect(list).toContain("<h1>Connections</h1>");
    expect(list).toContain("No connections yet.");
    expect(list).toContain('<form method="get" action="/app/connections/new"><label for="platform">Platform</label>');
    expect(list).toMatch(/<optgroup label="MCP servers"><option value="mcp">MCP server<\/option>/);
    expect(list).toMatch(/<button type="submit" class="secondary">Choose<\/button>/);
    // The chooser's answer on the list's own address leads to the form.
    const redirected = await browser.request("/app/connections?platform=mcp");
    expect(redirected.status).toBe(303);
    expect(redirected.headers.get("Location")).toBe("/app/connections/new?platform=mcp");

    const mcp = await (await browser.request("/app/connections/new?platform=mcp")).text();
    expect(mcp).toContain('<label for="connection-name">Name</label>');
    expect(mcp).toContain('<label for="config-url">URL<span class="required"> (required)</span></label>');
    expect(mcp).toMatch(/<input type="url" value="" [^>]*required="" [^>]*id="config-url" name="config.url" aria-describedby="config-url-hint"/);
    expect(mcp).toContain('<p class="hint" id="config-url-hint">The server&#39;s MCP endpoint');
    expect(mcp).toMatch(/<input type="password" value="" autocomplete="new-password"[^>]*id="config-token" name="config.token"/);
    expect(mcp).toContain('<label for="config-headers-0-name">Header 1 name</label>');
    expect(mcp).toMatch(/<input type="password" id="config-headers-0-value" name="config.headers.0.value"/);
    expect(mcp).toMatch(/<select id="config-transport" name="config.transport"[^>]*><option value="auto" selected="">auto<\/option>/);
    expect(mcp).toContain('<button type="submit" name="step" value="test" class="secondary">Test</button>');
    expect(mcp).toContain('<button type="submit" name="step" value="save">Save</button>');

    const slack = await (await browser.request("/app/connections/new?platform=slack")).text();
    expect(slack).toContain('<label for="config-bot_token">Bot token<span class="required"> (required)</span></label>');
    expect(slack).toMatch(/<input type="password"[^>]*required=""[^>]*id="config-bot_token"/);
    expect(slack).toContain('<label for="config-base_url">Base URL</label>');
    expect((await browser.request("/app/connections/new?platform=nothing")).status).toBe(404);
  });

  it("groups the platforms by category and searches them by name, purpose or category", async () => {
    const browser = await signedIn();
    const list = await (await browser.request("/app/connections")).text();
    // Categories in a marketer's order, each platform under its own.
    const email = list.indexOf('<optgroup label="Email">');
    const messaging = list.indexOf('<optgroup label="Messaging">');
    const crm = list.indexOf('<optgroup label="CRM">');
    expect(email).toBeGreaterThan(-1);
    expect(messaging).toBeGreaterThan(email);
    expect(crm).toBeGreaterThan(messaging);
    expect(list.slice(email, messaging)).toContain('<option value="resend">');
    expect(list.slice(messaging, crm)).toContain('<option value="slack">');
    expect(list).toContain('<input type="search" id="platform-search" name="q"');

    // A search keeps the platforms whose name, description or category has every word.
    const found = await (await browser.request("/app/connections/new?q=crm")).text();
    expect(found).toContain('<option value="hubspot">');
    expect(found).not.toContain('<option value="slack">');
    expect(found).toMatch(/Choose one of \d+ matching…/);
    const byPurpose = await (await browser.request(`/app/connections/new?q=${encodeURIComponent("send email")}`)).text();
    expect(byPurpose).toContain('<option value="resend">');
    expect(byPurpose).not.toContain('<option value="discord">');
    const none = await (await browser.request("/app/connections/new?q=zzzz-nothing")).text();
    expect(none).toContain("No platform matches “zzzz-nothing”.");
    expect(none).not.toContain('<select id="platform"');
  });

  it("tests the reference MCP server without saving, then saves it and lists it as active", async () => {
    const browser = await signedIn();
    const tested = await submitNew(browser, "mcp", "test", { name: "Everything", "config.url": env.TEST_MCP_URL, "config.transport": "auto" });
    expect(tested.status).toBe(200);
    const outcome = await tested.text();
    expect(outcome).toContain("<strong>Test passed</strong>");
    expect(outcome).toMatch(/Tools found \(\d+\):/);
    expect(outcome).toContain("<code>echo</code>");
    // What was typed stays in the form; nothing was stored.
    expect(outcome).toContain(`value="${env.TEST_MCP_URL}"`);
    expect(outcome).toContain('value="Everything"');
    expect(await (await browser.request("/app/connections")).text()).toContain("No connections yet.");

    const id = await saveMcp(browser, "Everything");
    const list = await (await browser.request(`/app/connections?saved=${id}`)).text();
    expect(list).toContain("Saved <strong>Everything</strong>.");
    expect(list).toContain(`<a href="/app/connections/${id}">Everything</a>`);
    expect(list).toContain('<span class="status status-active">Active</span>');
    expect(list).toContain('aria-label="Test Everything"');
    expect(list).toContain('aria-label="Delete Everything"');

    // "Test Everything": the saved config is tried again and the outcome recorded as its health.
    const retested = await act(browser, id, "test");
    expect(retested.status).toBe(200);
    const after = await retested.text();
    expect(after).toContain("<strong>Everything: Test passed</strong>");
    expect(after).toContain("<code>echo</code>");
    expect(after).toMatch(/<td data-label="Last used or tested"><time datetime="\d{4}-/);
    // The tools it brings are in the catalog, as with a connection made through the API.
    const token = await browser.apiKey();
    const tools = await json(await call("/v1/tools", { token }));
    expect(JSON.stringify(tools)).toContain(`mcp_${id}_echo`);
  });

  it("records a failed re-test as the connection's error, and shows a failed test of unsaved settings", async () => {
    const browser = await signedIn();
    const failed = await submitNew(browser, "mcp", "test", { name: "Nowhere", "config.url": "http://127.0.0.1:1/mcp" });
    expect(failed.status).toBe(200);
    expect(await failed.text()).toMatch(/<div class="error" role="alert"><p><strong>Test failed<\/strong> \(status error\):/);

    const id = await saveMcp(browser, "Nowhere", "http://127.0.0.1:1/mcp");
    const retested = await act(browser, id, "test", "detail");
    expect(retested.status).toBe(200);
    const detail = await retested.text();
    expect(detail).toContain("<h1>Nowhere</h1>");
    expect(detail).toContain("<strong>Test failed</strong>");
    expect(detail).toMatch(/<span class="status status-error">Error<\/span><span>: .+<\/span>/);
    const list = await (await browser.request("/app/connections")).text();
    expect(list).toMatch(/<td data-label="Status"><span class="status status-error">Error<\/span><span>: .+<\/span><\/td>/);
    const listed = (await json(await call("/v1/connections", { token: await browser.apiKey() }))).data;
    expect(listed[0]).toMatchObject({ connection_id: id, status: "error", error_message: expect.any(String) });
  });

  it("shows the service's field errors beside the fields and a missing name", async () => {
    const browser = await signedIn();
    const refused = await submitNew(browser, "mcp", "save", { name: "", "config.url": "not a url", "config.headers.0.name": "X-Key" });
    expect(refused.status).toBe(422);
    const page = await refused.text();
    expect(page).toContain('role="alert">Some fields need attention; see below.');
    expect(page).toContain('<p class="field-error" id="connection-name-error">Give the connection a name');
    expect(page).toContain('<p class="field-error" id="config-headers-error">Give each row both a name and a value.</p>');

    const invalid = await submitNew(browser, "mcp", "save", { name: "Bad", "config.url": "not a url" });
    expect(invalid.status).toBe(422);
    const html = await invalid.text();
    expect(html).toContain("The config does not fit the MCP server schema.");
    expect(html).toMatch(/<p class="field-error" id="config-url-error">[^<]+<\/p>/);
    expect(html).toMatch(/aria-describedby="config-url-hint config-url-error" aria-invalid="true"/);
    expect(html).toContain('value="not a url"');
    expect(await (await browser.request("/app/connections")).text()).toContain("No connections yet.");
  });

  it("never shows a secret: not after saving, not after a refused form, not when editing (which keeps it)", async () => {
    const browser = await signedIn();
    const secret = `xoxb-dashboard-${crypto.randomUUID()}`;
    const scenario = `dash${crypto.randomUUID().replace(/-/g, "")}`;
    const baseUrl = `${env.TEST_FAKE_URL}/s/${scenario}`;
    const refused = await submitNew(browser, "slack", "save", { name: "Team Slack", "config.bot_token": secret, "config.base_url": "nope" });
    expect(refused.status).toBe(422);
    const again = await refused.text();
    expect(again).not.toContain(secret);
    expect(again).toContain("Secret fields are never sent back to the page");
    expect(again).toMatch(/<input type="password" value="" autocomplete="new-password"[^>]*id="config-bot_token"/);

    // A platform other than MCP is tested with its cheapest authenticated call.
    const tested = await submitNew(browser, "slack", "test", { name: "Team Slack", "config.bot_token": secret, "config.base_url": baseUrl });
    const outcome = await tested.text();
    expect(outcome).toContain("<strong>Test passed</strong>: Connected to workspace Acme Marketing as hubbot.");
    expect(outcome).not.toContain(secret);

    const fields = { name: "Team Slack", "config.bot_token": secret, "config.default_channel": "#general", "config.base_url": baseUrl };
    const saved = await submitNew(browser, "slack", "save", fields);
    expect(saved.status).toBe(303);
    const id = Number(saved.headers.get("Location")!.match(/saved=(\d+)/)![1]);
    const list = await (await browser.request("/app/connections")).text();
    expect(list).toContain("Team Slack");
    expect(list).not.toContain(secret);
    const detail = await (await browser.request(`/app/connections/${id}`)).text();
    expect(detail).not.toContain(secret);
    expect(detail).toContain(`<code>••••${secret.slice(-4)}</code>`);
    expect(detail).toContain("<code>#general</code>");
    expect(detail).toContain(`<a href="/app/connections/${id}/edit">Edit settings</a>`);

    // Editing: the secret's input starts empty, and left empty the saved secret is kept.
    const editPath = `/app/connections/${id}/edit`;
    const editing = await (await browser.request(editPath)).text();
    expect(editing).not.toContain(secret);
    expect(editing).not.toContain(secret.slice(-4));
    expect(editing).toContain('value="#general"');
    expect(editing).toMatch(/<input type="password" value=""[^>]*id="config-bot_token"/);
    expect(editing).toContain("Secret: leave empty to keep the saved value.");
    const edit = { name: "Team Slack (renamed)", "config.default_channel": "#marketing", "config.base_url": baseUrl, "config.bot_token": "" };
    const edited = await browser.request(editPath, { form: { csrf_token: await browser.csrf(editPath), ...edit } });
    expect(edited.status).toBe(303);
    expect(edited.headers.get("Location")).toBe(`/app/connections/${id}`);
    const retested = await (await act(browser, id, "test", "detail")).text();
    expect(retested).toContain("<h1>Team Slack (renamed)</h1>");
    expect(retested).toContain("<code>#marketing</code>");
    expect(retested).toContain("<strong>Test passed</strong>: Connected to workspace Acme Marketing");
    const sent = (await (await fetch(`${env.TEST_FAKE_URL}/__requests/${scenario}`)).json()) as { headers: Record<string, string> }[];
    expect(sent.at(-1)!.headers.authorization).toBe(`Bearer ${secret}`);

    // Sending the saved secret somewhere new needs it typed again.
    const moved = await browser.request(editPath, {
      form: { csrf_token: await browser.csrf(editPath), ...edit, "config.base_url": "https://elsewhere.example" },
    });
    expect(moved.status).toBe(422);
    const movedPage = await moved.text();
    expect(movedPage).toMatch(/<p class="field-error" id="config-bot_token-error">Enter the value again: base_url changed.<\/p>/);
    expect(movedPage).not.toContain(secret);
  });

  it("keeps another person's connections out of reach and refuses forms without the CSRF token", async () => {
    const owner = await signedIn();
    const id = await saveMcp(owner, "Private");
    const stranger = await signedIn();
    expect((await stranger.request(`/app/connections/${id}`)).status).toBe(404);
    expect(await (await stranger.request("/app/connections")).text()).not.toContain("Private");
    expect((await act(stranger, id, "test")).status).toBe(404);
    expect((await act(stranger, id, "delete")).status).toBe(404);
    expect((await owner.request(`/app/connections/${id}`)).status).toBe(200);
    expect((await stranger.request(`/app/connections/${id}/edit`)).status).toBe(404);
    const csrf = await stranger.csrf("/app/connections");
    const renamed = await stranger.request(`/app/connections/${id}/edit`, { form: { csrf_token: csrf, name: "Mine now", "config.url": env.TEST_MCP_URL } });
    expect(renamed.status).toBe(404);

    expect((await owner.request(`/app/connections/${id}`, { form: { step: "delete" } })).status).toBe(403);
    const forged = await owner.request("/app/connections/new", { form: { platform: "mcp", step: "save", name: "Forged", "config.url": env.TEST_MCP_URL } });
    expect(forged.status).toBe(403);
    expect(await (await owner.request("/app/connections")).text()).not.toContain("Forged");

    const deleted = await act(owner, id, "delete");
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get("Location")).toBe("/app/connections");
    expect((await owner.request(`/app/connections/${id}`)).status).toBe(404);
    expect((await owner.request("/app/connections/abc")).status).toBe(404);
  });
});
