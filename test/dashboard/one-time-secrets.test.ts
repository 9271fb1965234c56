import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createDb } from "../../src/db/client";
import { removeExpiredCredentials } from "../../src/scheduled/housekeeping";
import { newWorkflow } from "../helpers/runs";
import { Browser, newEmail } from "./browser";

const FLASH = "ahk_new_agent_secret";
const SECRET = /<code id="new-webhook-secret">(whsec_[^<]+)<\/code>/;
const ALREADY_SHOWN = "webhook secret was already shown once and is not shown again";

afterEach(() => {
  vi.useRealTimers();
});

/** Deploys an agent from the dashboard; returns its page's path and the flash cookie the deploy set. */
async function deployAgent() {
  const browser = new Browser();
  await browser.register(newEmail());
  const key = await browser.apiKey();
  const workflow = await newWorkflow(key, { workflow_name: "Lead router", steps: [{ id: "a", type: "set", values: { x: 1 } }] });
  const deployed = await browser.request("/app/agents/new", {
    form: { step: "deploy", name: "Nightly sync", workflow_id: String(workflow.id), schedule_type: "none", csrf_token: await browser.csrf("/app/agents/new") },
  });
  expect(deployed.status).toBe(303);
  const path = deployed.headers.get("Location")!;
  const flash = browser.cookies.get(FLASH)!;
  expect(flash).toBeTruthy();
  return { browser, path, flash };
}

/** Opens the agent's page presenting `flash`, as a browser that kept (or copied) the cookie would. */
async function openWith(browser: Browser, path: string, flash: string) {
  browser.cookies.set(FLASH, flash);
  const response = await browser.request(path);
  expect(response.status).toBe(200);
  return response.text();
}

describe("one-time secrets shown through a flash cookie are shown once, by the server's record", () => {
  it("a new agent's webhook secret: the first showing works, the same cookie sent again shows only a note", async () => {
    const { browser, path, flash } = await deployAgent();
    const first = await openWith(browser, path, flash);
    const secret = first.match(SECRET)![1]!;
    expect(first).toContain("copy it now, it is shown only once");
    expect(first).not.toContain(ALREADY_SHOWN);

    // The page asked the browser to forget the cookie; one that sends it again anyway gets nothing.
    expect(browser.cookies.has(FLASH)).toBe(false);
    const replayed = await openWith(browser, path, flash);
    expect(replayed).not.toContain(secret);
    expect(replayed).not.toContain("new-webhook-secret");
    expect(replayed).toContain(ALREADY_SHOWN);
    // And again: the record stays.
    expect(await openWith(browser, path, flash)).not.toContain(secret);
  });

  it("the same cookie presented twice at once is shown by one request only", async () => {
    const { browser, path, flash } = await deployAgent();
    const pages = await Promise.all([openWith(browser, path, flash), openWith(browser, path, flash)]);
    expect(pages.filter((html) => SECRET.test(html))).toHaveLength(1);
    expect(pages.filter((html) => html.includes(ALREADY_SHOWN))).toHaveLength(1);
  });

  it("housekeeping forgets a shown flash only once it has expired, and an expired cookie shows nothing", async () => {
    const { browser, path, flash } = await deployAgent();
    const secret = (await openWith(browser, path, flash)).match(SECRET)![1]!;
    const db = createDb(env.DB);
    const count = async () =>
      (await env.DB.prepare("SELECT COUNT(*) AS n FROM one_time_flashes WHERE expires_at > ?").bind(Date.now()).first<{ n: number }>())!.n;

    // Still within its lifetime: the record is kept, so the cookie stays spent.
    const live = await count();
    expect(live).toBeGreaterThan(0);
    await removeExpiredCredentials(db);
    expect(await count()).toBeGreaterThanOrEqual(live);
    expect(await openWith(browser, path, flash)).toContain(ALREADY_SHOWN);

    // Past the flash's two minutes the record goes, and the cookie is refused for its age.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 121_000 });
    const removed = await removeExpiredCredentials(db);
    expect(removed.flashes).toBeGreaterThan(0);
    const late = await openWith(browser, path, flash);
    expect(late).not.toContain(secret);
    expect(late).not.toContain("new-webhook-secret");
  });
});
