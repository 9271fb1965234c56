import { describe, expect, it } from "vitest";
import { call, json } from "../helpers/api";
import { Browser, newEmail } from "./browser";

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

  it("uses a template: a new workflow of the person's, and a redirect to it", async () => {
    const browser = await signedIn();
    const key = await browser.apiKey();
    const used = await browser.request("/app/templates", {
      form: { step: "use", template_id: "nps-detractor-alert", csrf_token: await browser.csrf("/app/templates") },
    });
    expect(used.status).toBe(303);
    const workflowId = Number(used.headers.get("Location")!.match(/^\/app\/workflows\/(\d+)$/)![1]);
    const { data } = await json(await call("/v1/workflows", { token: key }));
    expect(data.map((w: any) => [w.id, w.name])).toEqual([[workflowId, "NPS detractor alert"]]);
    expect(data[0].workflow_metadata.template_id).toBe("nps-detractor-alert");

    // Someone else does not get that workflow.
    const stranger = await signedIn();
    expect((await call(`/v1/workflows/${workflowId}`, { token: await stranger.apiKey() })).status).toBe(404);

    const missing = await browser.request("/app/templates", {
      form: { step: "use", template_id: "no-such-template", csrf_token: await browser.csrf("/app/templates") },
    });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('role="alert"');
  });

  it("refuses a use without the CSRF token, creating nothing", async () => {
    const browser = await signedIn();
    const key = await browser.apiKey();
    expect((await browser.request("/app/templates", { form: { step: "use", template_id: "nps-detractor-alert" } })).status).toBe(403);
    const other = await signedIn();
    const foreignToken = await other.csrf("/app/templates");
    expect((await browser.request("/app/templates", { form: { step: "use", template_id: "nps-detractor-alert", csrf_token: foreignToken } })).status).toBe(403);
    expect((await json(await call("/v1/workflows", { token: key }))).data).toEqual([]);
    expect((await call("/app/templates")).status).toBe(303);
  });
});
