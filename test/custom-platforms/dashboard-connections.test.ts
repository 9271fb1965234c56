// The dashboard's connection pages find the person's custom platforms as the API does: adding,
// showing and editing a connection to one works, and another person cannot reach it.
import { describe, expect, it } from "vitest";
import { Browser, newEmail } from "../dashboard/browser";
import { call, json } from "../helpers/api";
import { addPetstore, petstoreScenario, scenarioUrl } from "./helpers";

describe("custom-platform connections in the dashboard", () => {
  it("adds, shows and edits a connection to a custom platform", async () => {
    const browser = new Browser();
    await browser.register(newEmail());
    const key = await browser.apiKey();
    const id = await addPetstore(key);

    const form = await browser.request(`/app/connections/new?platform=${id}`);
    expect(form.status).toBe(200);
    const html = await form.text();
    expect(html).toContain("Swagger Petstore - OpenAPI 3.0");
    expect(html).toMatch(/<input type="password"[^>]*id="config-api_key"/);

    const secret = "special-key";
    const baseUrl = scenarioUrl(petstoreScenario("dashboard"));
    const csrf = await browser.csrf(`/app/connections/new?platform=${id}`);
    const saved = await browser.request("/app/connections/new", {
      form: {
        csrf_token: csrf,
        platform: id,
        step: "save",
        name: "Pets",
        "config.api_key": secret,
        "config.base_url": baseUrl,
      },
    });
    expect(saved.status).toBe(303);
    const connectionId = Number(saved.headers.get("Location")!.match(/saved=(\d+)/)![1]);

    const detail = await browser.request(`/app/connections/${connectionId}`);
    expect(detail.status).toBe(200);
    const detailHtml = await detail.text();
    expect(detailHtml).not.toContain(secret);
    // The platform goes by the name its document gives, not by its id.
    expect(detailHtml).toContain("Swagger Petstore - OpenAPI 3.0");

    const editPath = `/app/connections/${connectionId}/edit`;
    const editing = await browser.request(editPath);
    expect(editing.status).toBe(200);
    expect(await editing.text()).toMatch(/<input type="password" value=""[^>]*id="config-api_key"/);
    const edited = await browser.request(editPath, {
      form: { csrf_token: await browser.csrf(editPath), name: "Pets (renamed)", "config.base_url": baseUrl, "config.api_key": "" },
    });
    expect(edited.status).toBe(303);
    const connection = await json(await call(`/v1/connections/${connectionId}`, { token: key }));
    expect(connection).toMatchObject({ name: "Pets (renamed)", platform: id });
    expect(connection.config.api_key).toBe("••••");

    // Another person's dashboard knows neither the platform nor the connection.
    const stranger = new Browser();
    await stranger.register(newEmail());
    expect((await stranger.request(`/app/connections/new?platform=${id}`)).status).toBe(404);
    expect((await stranger.request(editPath)).status).toBe(404);
  });
});
