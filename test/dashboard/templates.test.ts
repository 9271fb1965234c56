import { describe, expect, it } from "vitest";
import { call, json } from "../helpers/api";
import { Browser, newEmail } from "./browser";

const CONFIGS = {
  slack: { bot_token: "xoxb-test-0123456789" },
  hubspot: { access_token: "pat-na1-test-0123456789" },
};

/** A connection of the person's, made through the API. */
async function connection(key: string, platform: keyof typeof CONFIGS, name: string) {
  const response = await call("/v1/connections", { token: key, json: { platform, name, config: CONFIGS[platform] } });
  expect(response.status).toBe(201);
  return (await json(response)).connection_id as number;
}

const deployPath = (template: string) => `/app/templates/${template}/deploy`;
const usePath = (template: string) => `/app/templates/${template}/use`;

/** Posts the "Use" form of a template with these fields. */
async function use(browser: Browser, template: string, fields: Record<string, string>) {
  return browser.request(usePath(template), { form: { step: "use", ...fields, csrf_token: await browser.csrf(usePath(template)) } });
}

async function useAndDeploy(browser: Browser, template: string, fields: Record<string, string>) {
  return browser.request(deployPath(template), { form: { step: "deploy", ...fields, csrf_token: await browser.csrf(deployPath(template)) } });
}

const toolSteps = (steps: any[]): any[] =>
  steps.flatMap((step) => [...(step.type === "tool" ? [step] : []), ...toolSteps([...(step.then ?? []), ...(step.else ?? [])])]);

async function signedIn() {
  const browser = new Browser();
  await browser.register(newEmail());
  return browser;
}

const page = async (browser: Browser, query = "") => {
  const response = await browser.request(`/app/templates${query}`);
  expect(response.status).toBe(200);
  return response.text();
};

/** The part of the page under a section's heading (up to the next section). */
const section = (html: string, id: string) => {
  const start = html.indexOf(`id="${id}"`);
  if (start < 0) return "";
  const end = html.indexOf("<section", start);
  return html.slice(start, end < 0 ? undefined : end);
};

describe("the dashboard's templates page", () => {
  it("lists templates with featured ones in their own section, and filters by category, search and featured", async () => {
    const browser = await signedIn();
    const all = await page(browser);
    expect(all).toContain('<label for="template-search">Search templates</label>');
    expect(all).toContain('<label for="template-category">Category</label>');
    expect(all).toContain("Featured only");
    expect(all).toContain('<button type="submit">Filter</button>');
    expect(all).toContain('<option value="e-commerce">e-commerce</option>');
    // Featured templates sit in their own section; the others below.
    expect(section(all, "featured-templates")).toContain("Abandoned cart reminder");
    expect(section(all, "featured-templates")).not.toContain("Daily signups digest");
    expect(section(all, "more-templates")).toContain("Daily signups digest");
    // A card shows what the template is and a button to use it.
    expect(all).toContain('aria-label="Use Abandoned cart reminder"');
    expect(all).toMatch(/<dt>Steps<\/dt><dd>\d+<\/dd>/);
    expect(all).toMatch(/<dt>Uses<\/dt><dd>\d+<\/dd>/);

    const shop = await page(browser, "?category=e-commerce");
    expect(shop).toContain('<option value="e-commerce" selected="">e-commerce</option>');
    expect(shop).toContain("Abandoned cart reminder");
    expect(shop).toContain("Review request after purchase");
    expect(shop).not.toContain("Daily signups digest");
    expect(shop).not.toContain("NPS detractor alert");

    const nps = await page(browser, "?search=detractor");
    expect(nps).toContain("NPS detractor alert");
    expect(nps).not.toContain("Abandoned cart reminder");
    expect(nps).toContain('value="detractor"');

    const featured = await page(browser, "?featured=1");
    expect(featured).toContain("Abandoned cart reminder");
    expect(featured).not.toContain("Daily signups digest");
    expect(featured).not.toContain('id="more-templates"');
    expect(featured).toMatch(/id="template-featured"[^>]*checked=""/);

    const nothing = await page(browser, "?search=zzz-no-such-template");
    expect(nothing).toContain("No template matches.");
  });

  it("uses a template: the card's Use asks first, then makes a new workflow of the person's and redirects to it", async () => {
    const browser = await signedIn();
    const key = await browser.apiKey();
    expect(await page(browser)).toContain('<a href="/app/templates/nps-detractor-alert/use" aria-label="Use NPS detractor alert">Use</a>');
    // A page still showing the old Use button lands on the same form.
    const old = await browser.request("/app/templates", {
      form: { step: "use", template_id: "nps-detractor-alert", csrf_token: await browser.csrf("/app/templates") },
    });
    expect(old.status).toBe(303);
    expect(old.headers.get("Location")).toBe(usePath("nps-detractor-alert"));
    const form = await (await browser.request(usePath("nps-detractor-alert"))).text();
    expect(form).toContain("<h1>Use: NPS detractor alert</h1>");
    expect(form).toContain('<button type="submit" name="step" value="use">Use</button>');

    const used = await use(browser, "nps-detractor-alert", {});
    expect(used.status).toBe(303);
    const workflowId = Number(used.headers.get("Location")!.match(/^\/app\/workflows\/(\d+)$/)![1]);
    const { data } = await json(await call("/v1/workflows", { token: key }));
    expect(data.map((w: any) => [w.id, w.name])).toEqual([[workflowId, "NPS detractor alert"]]);
    expect(data[0].workflow_metadata.template_id).toBe("nps-detractor-alert");
    // Only a workflow: nothing was deployed.
    expect(await json(await call("/v1/agents", { token: key }))).toEqual([]);

    // Someone else does not get that workflow.
    const stranger = await signedIn();
    expect((await call(`/v1/workflows/${workflowId}`, { token: await stranger.apiKey() })).status).toBe(404);
    expect((await browser.request(usePath("no-such-template"))).status).toBe(404);
  });

  it("Use binds the chosen connection and sets the variables as typed; without a connection the workflow is still made, unbound", async () => {
    const browser = await signedIn();
    const key = await browser.apiKey();
    const form = await (await browser.request(usePath("lead-form-to-crm-and-slack"))).text();
    // No connection yet: a link to connect one, and the variable prefilled with its default and described.
    expect(form).toContain('<a href="/app/connections/new?platform=slack" id="connection-slack-connect">Connect Slack</a>');
    expect(form).toContain("The workflow can be made without it; its Slack steps need a connection before it runs.");
    expect(form).toMatch(/<input type="text" value="#sales"[^>]*name="var.sales_channel"/);
    expect(form).toContain("Slack channel for new-lead alerts");
    const unbound = await use(browser, "lead-form-to-crm-and-slack", { "var.sales_channel": "#new-leads" });
    expect(unbound.status).toBe(303);
    const first = await json(await call(`/v1/workflows/${unbound.headers.get("Location")!.split("/").pop()}`, { token: key }));
    expect(first.variables.sales_channel).toBe("#new-leads");
    expect(toolSteps(first.steps).every((step) => step.arguments.connection_id === undefined)).toBe(true);

    const older = await connection(key, "slack", "Old workspace");
    await connection(key, "slack", "Newer workspace");
    const hubspot = await connection(key, "hubspot", "CRM");
    const withChoice = await (await browser.request(usePath("lead-form-to-crm-and-slack"))).text();
    expect(withChoice).toContain('<select id="connection-slack" name="connection.slack">');
    expect(withChoice).toContain(`<option value="${older}">Old workspace (active)</option>`);
    const bound = await use(browser, "lead-form-to-crm-and-slack", {
      name: "Leads, my way",
      "connection.slack": String(older),
      "connection.hubspot": String(hubspot),
      "var.sales_channel": "#leads",
    });
    expect(bound.status).toBe(303);
    const second = await json(await call(`/v1/workflows/${bound.headers.get("Location")!.split("/").pop()}`, { token: key }));
    expect(second.name).toBe("Leads, my way");
    const steps = toolSteps(second.steps);
    expect(steps.find((step) => step.tool === "slack_send_message").arguments.connection_id).toBe(older);
    expect(steps.find((step) => step.tool === "hubspot_create_contact").arguments.connection_id).toBe(hubspot);
    expect(await json(await call("/v1/agents", { token: key }))).toEqual([]);

    // Someone else's connection id is refused at its field, and nothing more is made.
    const stranger = await signedIn();
    const theirs = await connection(await stranger.apiKey(), "slack", "Not yours");
    const refused = await use(browser, "lead-form-to-crm-and-slack", { "connection.slack": String(theirs), "var.sales_channel": "#x" });
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain('id="connection-slack-error"');
    expect((await json(await call("/v1/workflows", { token: key }))).data).toHaveLength(2);
  });

  it("asks for a variable with no default as a required field, and shows the refusal when it is left empty", async () => {
    const browser = await signedIn();
    const html = await (await browser.request(usePath("scheduled-social-posts-discord"))).text();
    expect(html).toMatch(/<code>channel_id<\/code> \(required\)/);
    expect(html).toMatch(/<input type="text" value=""[^>]*required=""[^>]*name="var.channel_id"/);
    const refused = await use(browser, "scheduled-social-posts-discord", { "var.channel_id": "" });
    expect(refused.status).not.toBe(303);
    expect(await refused.text()).toContain("channel_id");
    expect(await json(await call("/v1/workflows", { token: await browser.apiKey() }))).toMatchObject({ data: [] });
  });

  it("refuses a use without the CSRF token, creating nothing", async () => {
    const browser = await signedIn();
    const key = await browser.apiKey();
    expect((await browser.request("/app/templates", { form: { step: "use", template_id: "nps-detractor-alert" } })).status).toBe(403);
    expect((await browser.request(usePath("nps-detractor-alert"), { form: { step: "use" } })).status).toBe(403);
    const other = await signedIn();
    const foreignToken = await other.csrf("/app/templates");
    expect((await browser.request("/app/templates", { form: { step: "use", template_id: "nps-detractor-alert", csrf_token: foreignToken } })).status).toBe(403);
    expect((await json(await call("/v1/workflows", { token: key }))).data).toEqual([]);
    expect((await call("/app/templates")).status).toBe(303);
  });

  it(`offers "Use and deploy" on each card, with a select of the person's connections per platform and the variables`, async () => {
    const browser = await signedIn();
    const key = await browser.apiKey();
    const older = await connection(key, "slack", "Old workspace");
    const newer = await connection(key, "slack", "Sales workspace");
    await connection(key, "hubspot", "CRM");
    expect(await page(browser)).toContain(
      '<a href="/app/templates/lead-form-to-crm-and-slack/deploy" aria-label="Use and deploy Lead form → HubSpot contact → Slack alert">Use and deploy</a>',
    );
    const response = await browser.request(deployPath("lead-form-to-crm-and-slack"));
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain("<h1>Use and deploy: Lead form → HubSpot contact → Slack alert</h1>");
    expect(html).toContain('<select id="connection-slack" name="connection.slack">');
    // The newest active connection comes selected, as the service would pick it.
    expect(html).toContain(`<option value="${newer}" selected="">Sales workspace (active)</option>`);
    expect(html).toContain(`<option value="${older}">Old workspace (active)</option>`);
    expect(html).toContain('<select id="connection-hubspot" name="connection.hubspot">');
    expect(html).toMatch(/<input type="text" value="#sales"[^>]*name="var.sales_channel"/);
    expect(html).toContain("Slack channel for new-lead alerts");
    expect(html).toContain('<button type="submit" name="step" value="deploy">Use and deploy</button>');

    expect((await browser.request(deployPath("no-such-template"))).status).toBe(404);
  });

  it("uses and deploys: a deployed agent bound to the chosen connection, and its page shows the secret once", async () => {
    const browser = await signedIn();
    const key = await browser.apiKey();
    const chosen = await connection(key, "slack", "Old workspace");
    await connection(key, "slack", "Newer workspace");
    const hubspot = await connection(key, "hubspot", "CRM");
    const deployed = await useAndDeploy(browser, "lead-form-to-crm-and-slack", {
      name: "Leads to CRM",
      "connection.slack": String(chosen),
      "connection.hubspot": String(hubspot),
      "var.sales_channel": "#leads",
    });
    expect(deployed.status).toBe(303);
    const location = deployed.headers.get("Location")!;
    const agentId = location.match(/^\/app\/agents\/([0-9a-f-]{36})$/)![1]!;
    const html = await (await browser.request(location)).text();
    const secret = html.match(/<code id="new-webhook-secret">(whsec_[^<]+)<\/code>/)![1]!;
    expect(html).toContain("Trigger: webhook");
    expect(await (await browser.request(location)).text()).not.toContain(secret);

    const agent = await json(await call(`/v1/agents/${agentId}`, { token: key }));
    expect(agent).toMatchObject({ status: "active", workflow_name: "Leads to CRM", trigger: { type: "webhook", verify: "hub" } });
    const workflow = await json(await call(`/v1/workflows/${agent.workflow_id}`, { token: key }));
    const steps = toolSteps(workflow.steps);
    expect(steps.find((step) => step.tool === "slack_send_message").arguments.connection_id).toBe(chosen);
    expect(steps.find((step) => step.tool === "hubspot_create_contact").arguments.connection_id).toBe(hubspot);
    expect(workflow.variables.sales_channel).toBe("#leads");
  });

  it("refuses with 422 naming a platform the person has not connected, with a link to connect it, and makes nothing", async () => {
    const browser = await signedIn();
    const key = await browser.apiKey();
    const hubspot = await connection(key, "hubspot", "CRM");
    const form = await (await browser.request(deployPath("lead-form-to-crm-and-slack"))).text();
    expect(form).toContain("you have no Slack connection yet.");
    expect(form).toContain('<a href="/app/connections/new?platform=slack" id="connection-slack-connect">Connect Slack</a>');

    const refused = await useAndDeploy(browser, "lead-form-to-crm-and-slack", { "connection.hubspot": String(hubspot), "var.sales_channel": "#leads" });
    expect(refused.status).toBe(422);
    const html = await refused.text();
    expect(html).toContain('role="alert">Connections are missing or wrong for: slack.');
    expect(html).toMatch(
      /<p class="field-error" id="connection-slack-error">The template needs a slack connection: create one, then name it here\. <a href="\/app\/connections\/new\?platform=slack"/,
    );
    // What was typed comes back.
    expect(html).toMatch(/<input type="text" value="#leads"[^>]*name="var.sales_channel"/);
    expect((await json(await call("/v1/workflows", { token: key }))).data).toEqual([]);
    expect(await json(await call("/v1/agents", { token: key }))).toEqual([]);
  });

  it("reads a number variable as a number, refusing text with 422 at the field; a provider webhook lands on its signing secret form", async () => {
    const browser = await signedIn();
    const key = await browser.apiKey();
    await connection(key, "slack", "Shop alerts");
    const bad = await useAndDeploy(browser, "high-value-order-alert", { "var.threshold": "lots", "var.channel": "#orders" });
    expect(bad.status).toBe(422);
    const badHtml = await bad.text();
    expect(badHtml).toContain('<p class="field-error" id="var-0-error">Type a number, like 3 or 2.5.</p>');
    expect(badHtml).toMatch(/<input type="text" inputmode="decimal" value="lots"[^>]*aria-invalid="true"/);
    expect((await json(await call("/v1/workflows", { token: key }))).data).toEqual([]);

    const deployed = await useAndDeploy(browser, "high-value-order-alert", { "var.threshold": "750", "var.channel": "#orders" });
    expect(deployed.status).toBe(303);
    const html = await (await browser.request(deployed.headers.get("Location")!)).text();
    expect(html).toContain("<dt>Verification</dt><dd>Shopify signature (X-Shopify-Hmac-Sha256)</dd>");
    expect(html).toContain("<dt>Event types</dt><dd>orders/create</dd>");
    expect(html).toContain('id="signing-secret-form"');
    const [workflow] = (await json(await call("/v1/workflows", { token: key }))).data;
    expect(workflow.variables.threshold).toBe(750);
  });

  it('refuses "Use and deploy" without the CSRF token, creating nothing', async () => {
    const browser = await signedIn();
    const key = await browser.apiKey();
    await connection(key, "slack", "Shop alerts");
    const form = { step: "deploy", "var.threshold": "750", "var.channel": "#orders" };
    expect((await browser.request(deployPath("high-value-order-alert"), { form })).status).toBe(403);
    const other = await signedIn();
    const foreign = await other.csrf("/app/templates");
    expect((await browser.request(deployPath("high-value-order-alert"), { form: { ...form, csrf_token: foreign } })).status).toBe(403);
    expect((await json(await call("/v1/workflows", { token: key }))).data).toEqual([]);
    expect(await json(await call("/v1/agents", { token: key }))).toEqual([]);
    expect((await call(deployPath("high-value-order-alert"))).status).toBe(303);
  });
});
