import { describe, expect, it } from "vitest";
import { call, json } from "../helpers/api";
import { Browser, newEmail } from "../dashboard/browser";
import { deployAgent, ledgerRow } from "./helpers";

const DAY = 86_400_000;
const today = () => new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()));
const daysAgo = (n: number) => new Date(today().getTime() - n * DAY + 60_000);

async function signedIn() {
  const browser = new Browser();
  await browser.register(newEmail());
  const key = await browser.apiKey();
  const me = await json(await call("/v1/me", { token: key }));
  return { browser, key, userId: me.id as number };
}

describe("the usage page", () => {
  it("draws a bar for each day with spending, and tables by model and by agent", async () => {
    const { browser, key, userId } = await signedIn();
    expect((await call("/app/usage")).status).toBe(303);
    const empty = await (await browser.request("/app/usage")).text();
    expect(empty).toContain('<a href="/app/usage">Usage</a>');
    expect(empty).toContain("Nothing was spent on model requests in these days.");
    expect(empty).not.toContain('class="bar"');

    const agentId = await deployAgent(key, {});
    await ledgerRow({ userId, at: daysAgo(0), model: "gpt-4o", agentId, input: 1000, output: 100, nanoUsd: 3_500_000_000 });
    await ledgerRow({ userId, at: daysAgo(2), model: "gpt-4o-mini", input: 500, output: 50, nanoUsd: 105_000_000 });
    await ledgerRow({ userId, at: daysAgo(2), model: "gpt-4o-mini", input: 500, output: 50, nanoUsd: 105_000_000 });
    await ledgerRow({ userId, at: daysAgo(9), model: "gpt-4o", agentId, input: 10, output: 1, nanoUsd: 35_000_000 });
    // Tokens of an unpriced model: counted, but no spending, so no bar.
    await ledgerRow({ userId, at: daysAgo(5), model: "house-7b", input: 7, output: 7, nanoUsd: 0 });
    // Older than 30 days: not on the page.
    await ledgerRow({ userId, at: daysAgo(31), model: "gpt-4o", input: 1, output: 1, nanoUsd: 999_000_000 });

    const response = await browser.request("/app/usage");
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('<svg class="cost-chart" viewBox="0 0 640 220" role="img" aria-labelledby="cost-chart-title cost-chart-desc">');
    expect(page).toMatch(/<title id="cost-chart-title">Cost per day, \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2} \(UTC\)<\/title>/);
    const bars = [...page.matchAll(/<rect class="bar"[^>]*><title>([^<]+)<\/title><\/rect>/g)].map((m) => m[1]);
    const day = (n: number) => daysAgo(n).toISOString().slice(0, 10);
    expect(bars).toEqual([`${day(9)}: $0.035`, `${day(2)}: $0.21`, `${day(0)}: $3.50`]);
    expect(page).toContain("3 of 30 days had spending, $3.75 in all; the most in one day was $3.50.");
    expect(page).toContain("<dt>Cost</dt><dd>$3.75</dd>");
    expect(page).toContain("<dt>Model calls</dt><dd>5</dd>");
    // By model, costliest first; by agent, named by its workflow.
    const models = [...page.matchAll(/<td data-label="Model"><code>([^<]+)<\/code><\/td>/g)].map((m) => m[1]);
    expect(models).toEqual(["gpt-4o", "gpt-4o-mini", "house-7b"]);
    expect(page).toContain(`<a href="/app/agents/${agentId}">Test flow</a>`);
    expect(page).toContain("No agent (your own chats and runs)");

    // Someone else sees none of it.
    const stranger = await signedIn();
    const theirs = await (await stranger.browser.request("/app/usage")).text();
    expect(theirs).not.toContain('class="bar"');
    expect(theirs).toContain("No model requests yet.");
  });

  it("sets the account budget with its form, refuses a bad value on the page, and needs the form's token", async () => {
    const { browser, key } = await signedIn();
    const csrf = await browser.csrf("/app/usage");
    const saved = await browser.request("/app/usage", { form: { step: "budget", max_usd_per_month: "25.5", max_tokens_per_day: "", csrf_token: csrf } });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("Location")).toBe("/app/usage");
    expect(await json(await call("/v1/me/budget", { token: key }))).toEqual({ max_usd_per_month: 25.5, max_tokens_per_day: null });
    const page = await (await browser.request("/app/usage")).text();
    expect(page).toContain('name="max_usd_per_month" min="0" step="any" value="25.5"');

    const refused = await browser.request("/app/usage", { form: { step: "budget", max_usd_per_month: "-3", max_tokens_per_day: "1.5", csrf_token: csrf } });
    expect(refused.status).toBe(422);
    const shown = await refused.text();
    expect(shown).toContain('role="alert"');
    expect(shown).toContain("Check max_usd_per_month and max_tokens_per_day");
    // What was typed stays in the form.
    expect(shown).toContain('value="-3"');
    expect(await json(await call("/v1/me/budget", { token: key }))).toEqual({ max_usd_per_month: 25.5, max_tokens_per_day: null });

    const forged = await browser.request("/app/usage", { form: { step: "budget", max_usd_per_month: "", max_tokens_per_day: "" } });
    expect(forged.status).toBe(403);
    // Cleared: empty fields are no limit.
    await browser.request("/app/usage", { form: { step: "budget", max_usd_per_month: "", max_tokens_per_day: "", csrf_token: csrf } });
    expect(await json(await call("/v1/me/budget", { token: key }))).toEqual({ max_usd_per_month: null, max_tokens_per_day: null });
  });
});
