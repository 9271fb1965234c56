// The dashboard's custom platforms page: upload a document, see the platform, delete it.
import { describe, expect, it } from "vitest";
import { Browser, newEmail } from "../dashboard/browser";
import { call, json } from "../helpers/api";
import { petstoreDocument } from "./helpers";

describe("/app/platforms", () => {
  it("adds a platform from a pasted document, lists it and deletes it", async () => {
    const browser = new Browser();
    await browser.register(newEmail());
    const home = await (await browser.request("/app/platforms")).text();
    expect(home).toContain('href="/app/platforms"');
    expect(home).toContain("No custom platform yet.");

    const form = { step: "create", document: JSON.stringify(petstoreDocument()), name: "Pets", csrf_token: await browser.csrf("/app/platforms") };
    const added = await browser.request("/app/platforms", { form });
    expect(added.status).toBe(201);
    const html = await added.text();
    const id = html.match(/<code id="new-platform-id">(cp_[a-z0-9]{8})<\/code>/)?.[1];
    expect(id).toBeDefined();
    expect(html).toContain("with 19 tools");

    // The platform is the person's, through the API too.
    const key = await browser.apiKey();
    expect((await json(await call("/v1/platforms", { token: key }))).data.map((p: any) => p.name)).toEqual(["Pets"]);

    const removed = await browser.request("/app/platforms", { form: { step: "delete", platform_id: id!, csrf_token: await browser.csrf("/app/platforms") } });
    expect(removed.status).toBe(303);
    expect(await (await browser.request("/app/platforms")).text()).toContain("No custom platform yet.");
  });

  it("takes the document as an uploaded file (multipart)", async () => {
    const browser = new Browser();
    await browser.register(newEmail());
    const body = new FormData();
    body.set("csrf_token", await browser.csrf("/app/platforms"));
    body.set("step", "create");
    body.set("document_file", new File([JSON.stringify(petstoreDocument())], "openapi.json", { type: "application/json" }));
    const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await call("/app/platforms", { method: "POST", body, headers: { Cookie: cookie } });
    expect(response.status).toBe(201);
    const html = await response.text();
    expect(html).toContain("Swagger Petstore - OpenAPI 3.0");
    expect(html).toContain("with 19 tools");
  });

  it("says what is wrong with a document it cannot use", async () => {
    const browser = new Browser();
    await browser.register(newEmail());
    const csrf = await browser.csrf("/app/platforms");
    const notJson = await browser.request("/app/platforms", { form: { step: "create", document: "openapi: 3.1.0", csrf_token: csrf } });
    expect(notJson.status).toBe(422);
    expect(await notJson.text()).toContain("not valid JSON");
    const privateServer = { ...petstoreDocument(), servers: [{ url: "http://169.254.169.254/" }] };
    const refused = await browser.request("/app/platforms", { form: { step: "create", document: JSON.stringify(privateServer), csrf_token: csrf } });
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain("not allowed");
  });
});
