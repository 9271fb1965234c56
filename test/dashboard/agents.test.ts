import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { nextCronInstant } from "../../src/lib/cron-time";
import { call, json } from "../helpers/api";
import { newWorkflow } from "../helpers/runs";
import { Browser, newEmail } from "./browser";

/** A signed-in person with an API key (for checks through the REST API) and one workflow. */
async function personWithWorkflow(workflowName = "Lead router") {
  const browser = new Browser();
  await browser.register(newEmail());
  const key = await browser.apiKey();
  const workflow = await newWorkflow(key, { workflow_name: workflowName, steps: [{ id: "a", type: "set", values: { x: 1 } }] });
  return { browser, key, workflowId: String(workflow.id) };
}

const deployForm = (workflowId: string, fields: Record<string, string>) => ({
  name: "Nightly sync",
  workflow_id: workflowId,
  schedule_type: "none",
  ...fields,
});

async function deploy(browser: Browser, fields: Record<string, string>) {
  return browser.request("/app/agents/new", { form: { step: "deploy", ...fields, csrf_token: await browser.csrf("/app/agents/new") } });
}

/** Deploys and follows the redirect to the new agent's page. */
async function deployed(browser: Browser, fields: Record<string, string>) {
  const response = await deploy(browser, fields);
  expect(response.status).toBe(303);
  const location = response.headers.get("Location")!;
  const agentId = location.match(/^\/app\/agents\/([0-9a-f-]{36})$/)![1]!;
  return { agentId, response, html: await (await browser.request(location)).text() };
}

const datetimesIn = (html: string) => [...html.matchAll(/<time datetime="([^"]+)"/g)].map((m) => m[1]!);

async function agentAction(browser: Browser, agentId: string, step: string, fields: Record<string, string> = {}) {
  const path = `/app/agents/${agentId}`;
  return browser.request(path, { form: { step, ...fields, csrf_token: await browser.csrf(path) } });
}

describe("the dashboard's agents pages", () => {
  it("deploys with an interval: the webhook secret is shown once, the next runs are listed, and the list links to it", async () => {
    const { browser, key, workflowId } = await personWithWorkflow();
    const form = await (await browser.request(`/app/agents/new?workflow_id=${workflowId}`)).text();
    expect(form).toContain(`<option value="${workflowId}" selected="">Lead router</option>`);
    expect(form).toContain('<label for="interval_seconds">Interval in seconds</label>');
    expect(form).toContain("<legend>Schedule</legend>");

    const before = Date.now();
    const { agentId, response, html } = await deployed(browser, deployForm(workflowId, { schedule_type: "interval", interval_seconds: "60" }));
    // The secret crosses the redirect in a short-lived cookie for that page only, never readable by scripts.
    const flash = response.headers.getSetCookie().find((line) => line.startsWith("ahk_new_agent_secret="))!;
    expect(flash).toMatch(/HttpOnly/i);
    expect(flash).toContain(`Path=/app/agents/${agentId}`);
    expect(flash).not.toContain("whsec_");
    const secret = html.match(/<code id="new-webhook-secret">(whsec_[^<]+)<\/code>/)![1]!;
    expect(html).toContain("copy it now, it is shown only once");
    expect(html).toContain("Every minute");
    // Five upcoming runs, a minute apart, starting within the next minute or so.
    const runs = datetimesIn(html.slice(html.indexOf("<h3>Next runs</h3>")))
      .slice(0, 5)
      .map((iso) => Date.parse(iso));
    expect(runs).toHaveLength(5);
    expect(runs[0]!).toBeGreaterThan(before);
    expect(runs[0]!).toBeLessThanOrEqual(Date.now() + 61_000);
    expect(runs.slice(1).map((run, n) => run - runs[n]!)).toEqual([60_000, 60_000, 60_000, 60_000]);

    const api = await json(await call(`/v1/agents/${agentId}`, { token: key }));
    expect(api).toMatchObject({ workflow_id: Number(workflowId), status: "active", schedule: { type: "interval", interval_seconds: 60 } });
    expect(api.agent_config).toEqual({ name: "Nightly sync" });

    const reloaded = await browser.request(`/app/agents/${agentId}`);
    expect(reloaded.status).toBe(200);
    const again = await reloaded.text();
    expect(again).not.toContain(secret);
    expect(again).not.toContain("new-webhook-secret");
    expect(again).toContain("<h3>Next runs</h3>");

    // It is the agent's real secret: an event signed with it is accepted.
    const body = JSON.stringify({ lead: "ada@example.com" });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const hmacKey = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", hmacKey, new TextEncoder().encode(`${timestamp}.${body}`)));
    const signature = `sha256=${[...mac].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
    const event = await call(`/v1/hooks/agents/${agentId}`, {
      body,
      headers: { "Content-Type": "application/json", "X-Hub-Timestamp": timestamp, "X-Hub-Signature": signature },
    });
    expect(event.status).toBe(202);

    const list = await (await browser.request("/app/agents")).text();
    expect(list).toContain('<a href="/app/agents/new">Deploy an agent</a>');
    expect(list).toContain(`<a href="/app/agents/${agentId}" aria-label="Open Nightly sync">`);
    expect(list).toContain("Every minute");
    expect(list).not.toContain(secret);
  });

  it("refuses a bad cron expression or time zone with 422, keeping what was typed, and deploys nothing", async () => {
    const { browser, key, workflowId } = await personWithWorkflow();
    const badCron = await deploy(browser, deployForm(workflowId, { name: "Bad cron", schedule_type: "cron", cron_expression: "61 * * * *", timezone: "UTC" }));
    expect(badCron.status).toBe(422);
    const html = await badCron.text();
    expect(html).toContain('role="alert"');
    expect(html).toContain("Use a standard 5-field cron expression");
    expect(html).toContain('value="Bad cron"');
    expect(html).toContain('value="61 * * * *"');
    expect(html).toMatch(/id="cron_expression"[^>]*aria-invalid="true"/);
    expect(html).toMatch(/<input type="radio" name="schedule_type" value="cron" checked=""/);

    const badZone = await deploy(browser, deployForm(workflowId, { schedule_type: "cron", cron_expression: "0 9 * * 1", timezone: "Mars/Olympus" }));
    expect(badZone.status).toBe(422);
    expect(await badZone.text()).toContain("Use an IANA time zone such as Europe/Berlin.");
    const tooOften = await deploy(browser, deployForm(workflowId, { schedule_type: "interval", interval_seconds: "0" }));
    expect(tooOften.status).toBe(422);
    const nameless = await deploy(browser, deployForm(workflowId, { name: " " }));
    expect(nameless.status).toBe(422);
    expect(await nameless.text()).toContain("Give the agent a name");

    expect(await json(await call("/v1/agents", { token: key }))).toEqual([]);
  });

  it("previews the next 5 runs of a cron in its time zone, as the scheduler computes them", async () => {
    const { browser, key, workflowId } = await personWithWorkflow();
    const start = new Date();
    const preview = await browser.request("/app/agents/new", {
      form: {
        step: "preview",
        ...deployForm(workflowId, { schedule_type: "cron", cron_expression: "0 9 * * 1", timezone: "Europe/Paris" }),
        csrf_token: await browser.csrf("/app/agents/new"),
      },
    });
    expect(preview.status).toBe(200);
    const html = await preview.text();
    const shown = datetimesIn(html.slice(html.indexOf('id="schedule-preview"')));
    expect(shown).toHaveLength(5);
    const expected: string[] = [];
    for (let after = start; expected.length < 5; ) {
      after = nextCronInstant("0 9 * * 1", "Europe/Paris", after);
      expected.push(after.toISOString());
    }
    expect(shown).toEqual(expected);
    // Each is a Monday at 09:00 on the Paris clock, and the page says so.
    const paris = new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Paris", weekday: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
    for (const iso of shown) expect(paris.format(new Date(iso))).toBe("Mon 09:00");
    expect(html).toContain("09:00 Europe/Paris");
    // The form comes back as typed, and nothing was deployed.
    expect(html).toContain('value="0 9 * * 1"');
    expect(html).toContain('value="Europe/Paris"');
    expect(html).toContain('value="Nightly sync"');
    expect(await json(await call("/v1/agents", { token: key }))).toEqual([]);
  });

  it("pauses and resumes (the REST API agrees), changes the schedule, runs now with health updated, and deletes", async () => {
    const { browser, key, workflowId } = await personWithWorkflow();
    const { agentId } = await deployed(browser, deployForm(workflowId, {}));

    expect((await agentAction(browser, agentId, "pause")).status).toBe(303);
    expect(await (await browser.request(`/app/agents/${agentId}`)).text()).toContain("Status: paused");
    expect((await json(await call(`/v1/agents/${agentId}`, { token: key }))).status).toBe("paused");
    // Paused, it cannot be run by hand: the button is disabled and says why; a run posted anyway
    // (from a page loaded before the pause) is refused with the input given back as typed.
    const pausedPage = await (await browser.request(`/app/agents/${agentId}`)).text();
    expect(pausedPage).toMatch(/<button type="submit" name="step" value="run" disabled="" aria-describedby="run-paused">Run now<\/button>/);
    expect(pausedPage).toContain('<p id="run-paused" class="hint">Resume the agent to run it by hand.</p>');
    const refused = await agentAction(browser, agentId, "run", { input: '{"n": 1}' });
    expect(refused.status).toBe(409);
    const refusedHtml = await refused.text();
    expect(refusedHtml).toContain("The agent is paused.");
    expect(refusedHtml).toMatch(/<textarea id="run-input"[^>]*>\{&quot;n&quot;: 1\}<\/textarea>/);
    expect((await agentAction(browser, agentId, "resume")).status).toBe(303);
    expect((await json(await call(`/v1/agents/${agentId}`, { token: key }))).status).toBe("active");

    const cron = { schedule_type: "cron", cron_expression: "0 9 * * 1", timezone: "Europe/Paris" };
    expect((await agentAction(browser, agentId, "schedule", cron)).status).toBe(303);
    expect((await json(await call(`/v1/agents/${agentId}`, { token: key }))).schedule).toEqual({
      type: "cron",
      cron_expression: "0 9 * * 1",
      timezone: "Europe/Paris",
    });
    expect(await (await browser.request(`/app/agents/${agentId}`)).text()).toContain("Every Monday at 09:00 (Europe/Paris; cron 0 9 * * 1)");
    const badUpdate = await agentAction(browser, agentId, "schedule", { ...cron, cron_expression: "every monday" });
    expect(badUpdate.status).toBe(422);
    expect(await badUpdate.text()).toContain('value="every monday"');
    expect((await agentAction(browser, agentId, "schedule", { schedule_type: "none" })).status).toBe(303);
    expect((await json(await call(`/v1/agents/${agentId}`, { token: key }))).schedule).toBeNull();

    const notObject = await agentAction(browser, agentId, "run", { input: "[1, 2]" });
    expect(notObject.status).toBe(422);
    const notObjectHtml = await notObject.text();
    expect(notObjectHtml).toContain("The run input must be a JSON object");
    expect(notObjectHtml).toMatch(/<textarea id="run-input"[^>]*>\[1, 2\]<\/textarea>/);
    expect(notObjectHtml).toMatch(/<button type="submit" name="step" value="run">Run now<\/button>/);
    const ran = await agentAction(browser, agentId, "run", { input: '{"email": "ada@example.com"}' });
    expect(ran.status).toBe(303);
    const executionId = new URL(ran.headers.get("Location")!, "http://hub.test").searchParams.get("started")!;
    expect(await (await browser.request(ran.headers.get("Location")!)).text()).toContain(`href="/app/executions/${executionId}"`);
    let monitoring: any;
    for (let tries = 0; tries < 100; tries++) {
      monitoring = (await json(await call(`/v1/agents/${agentId}`, { token: key }))).monitoring;
      if (monitoring.execution_count === 1) break;
      await scheduler.wait(100);
    }
    expect(monitoring).toMatchObject({ execution_count: 1, success_count: 1, failure_count: 0, success_rate: 100 });
    const health = await (await browser.request(`/app/agents/${agentId}`)).text();
    expect(health).toMatch(/<dt>Executions<\/dt><dd>1<\/dd>/);
    expect(health).toMatch(/<dt>Succeeded<\/dt><dd>1<\/dd>/);
    expect(health).toMatch(/<dt>Success rate<\/dt><dd>100%<\/dd>/);
    // The chart: one bar for the run, with its own title, and the table linking to the execution.
    expect(health).toMatch(new RegExp(`<rect [^>]*><title>${executionId}: succeeded, `));
    expect(health).toContain(`<a href="/app/executions/${executionId}"><code>${executionId}</code></a>`);

    const deleted = await agentAction(browser, agentId, "delete");
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get("Location")).toBe("/app/agents");
    expect((await call(`/v1/agents/${agentId}`, { token: key })).status).toBe(404);
  });

  it("shows someone else's agent as not found and refuses forms without the CSRF token", async () => {
    const owner = await personWithWorkflow("Private flow");
    const { agentId } = await deployed(owner.browser, deployForm(owner.workflowId, { name: "Secret agent" }));
    const stranger = new Browser();
    await stranger.register(newEmail());

    const peek = await stranger.request(`/app/agents/${agentId}`);
    expect(peek.status).toBe(404);
    const peeked = await peek.text();
    expect(peeked).not.toContain("Secret agent");
    expect(peeked).not.toContain("Private flow");
    const pause = await stranger.request(`/app/agents/${agentId}`, { form: { step: "pause", csrf_token: await stranger.csrf("/app/agents") } });
    expect(pause.status).toBe(404);
    // Nor can the stranger deploy the owner's workflow.
    const hijack = await deploy(stranger, deployForm(owner.workflowId, {}));
    expect(hijack.status).toBe(422);
    expect(await hijack.text()).toContain("Choose one of your workflows.");

    expect((await owner.browser.request(`/app/agents/${agentId}`, { form: { step: "pause" } })).status).toBe(403);
    expect((await owner.browser.request("/app/agents/new", { form: { step: "deploy", ...deployForm(owner.workflowId, {}) } })).status).toBe(403);
    const agents = await json(await call("/v1/agents", { token: owner.key }));
    expect(agents.map((a: any) => [a.agent_id, a.status])).toEqual([[agentId, "active"]]);
    // Signed out, the pages send the person to sign in.
    expect((await call("/app/agents")).status).toBe(303);
  });

  it("refuses a cron expression that never fires (31 February) in the preview, at deploy and on update, keeping what was typed", async () => {
    const { browser, key, workflowId } = await personWithWorkflow();
    const never = { schedule_type: "cron", cron_expression: "0 0 31 2 *", timezone: "Europe/Paris" };
    const expectRefused = async (response: Response) => {
      expect(response.status).toBe(422);
      const html = await response.text();
      expect(html).toMatch(/<p id="schedule-error" class="error" role="alert">This cron expression never fires/);
      expect(html).toContain('value="0 0 31 2 *"');
      expect(html).toContain('value="Europe/Paris"');
      expect(html).toMatch(/id="cron_expression"[^>]*aria-invalid="true"/);
      return html;
    };
    const preview = await browser.request("/app/agents/new", {
      form: { step: "preview", ...deployForm(workflowId, never), csrf_token: await browser.csrf("/app/agents/new") },
    });
    expect(await expectRefused(preview)).toContain('value="Nightly sync"');
    expect(await expectRefused(await deploy(browser, deployForm(workflowId, never)))).toContain('value="Nightly sync"');
    expect(await json(await call("/v1/agents", { token: key }))).toEqual([]);

    // On the agent's page, the schedule it has stays in place, still due.
    const { agentId } = await deployed(browser, deployForm(workflowId, { schedule_type: "interval", interval_seconds: "3600" }));
    const before = await json(await call(`/v1/agents/${agentId}`, { token: key }));
    await expectRefused(await agentAction(browser, agentId, "schedule", never));
    await expectRefused(await agentAction(browser, agentId, "preview", never));
    const after = await json(await call(`/v1/agents/${agentId}`, { token: key }));
    expect(after.schedule).toEqual({ type: "interval", interval_seconds: 3600 });
    expect(after.monitoring.next_run_at).toBe(before.monitoring.next_run_at);
    expect(after.monitoring.next_run_at).not.toBeNull();
  });

  it("selects the workflow asked for even beyond the first 200 offered, and says so when it is not the person's", async () => {
    const { browser, workflowId } = await personWithWorkflow("Oldest flow");
    // 200 newer workflows push the first one out of the list the form offers.
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
       INSERT INTO workflows (user_id, name, steps) SELECT w.user_id, 'Filler ' || n.i, w.steps FROM n, workflows w WHERE w.id = ?`,
    )
      .bind(Number(workflowId))
      .run();
    const form = await browser.request(`/app/agents/new?workflow_id=${workflowId}`);
    expect(form.status).toBe(200);
    const html = await form.text();
    expect(html).toContain(`<option value="${workflowId}" selected="">Oldest flow</option>`);
    expect(html).not.toContain("Choose a workflow");
    expect(html).not.toContain('role="alert"');

    // Someone else's workflow is neither shown nor replaced by one of the person's own.
    const stranger = await personWithWorkflow("Stranger flow");
    const refused = await stranger.browser.request(`/app/agents/new?workflow_id=${workflowId}`);
    expect(refused.status).toBe(404);
    const refusedHtml = await refused.text();
    expect(refusedHtml).toContain(
      `<p class="error" role="alert">There is no workflow of yours with the id &quot;${workflowId}&quot;: choose one of your workflows.</p>`,
    );
    expect(refusedHtml).not.toContain("Oldest flow");
    expect(refusedHtml).toContain('<option value="" selected="">Choose a workflow</option>');
    // The workflow menu selects none (the header's workspace menu selects the workspace shown).
    expect(refusedHtml.match(/<select id="agent-workflow"[\s\S]*?<\/select>/)![0]).not.toMatch(/<option value="\d+" selected/);
    expect(refusedHtml).toContain(`<option value="${stranger.workflowId}">Stranger flow</option>`);
    // The interval field sets no browser-side minimum that could block another schedule type.
    expect(refusedHtml).not.toMatch(/id="interval_seconds"[^>]*\smin=/);
  });

  it("says a run started only for a run of this agent that is the person's own", async () => {
    const { browser, workflowId } = await personWithWorkflow();
    const first = await deployed(browser, deployForm(workflowId, { name: "First" }));
    const second = await deployed(browser, deployForm(workflowId, { name: "Second" }));
    const ran = await agentAction(browser, first.agentId, "run");
    expect(ran.status).toBe(303);
    const executionId = new URL(ran.headers.get("Location")!, "http://hub.test").searchParams.get("started")!;
    const startedNote = (html: string) => html.includes("Run started:");
    expect(startedNote(await (await browser.request(`/app/agents/${first.agentId}?started=${executionId}`)).text())).toBe(true);
    // Another agent's run, an id that names nothing, and someone else's run are all ignored.
    expect(startedNote(await (await browser.request(`/app/agents/${second.agentId}?started=${executionId}`)).text())).toBe(false);
    expect(startedNote(await (await browser.request(`/app/agents/${first.agentId}?started=exe_made_up`)).text())).toBe(false);
    const other = await personWithWorkflow();
    const theirs = await deployed(other.browser, deployForm(other.workflowId, {}));
    const theirRun = new URL((await agentAction(other.browser, theirs.agentId, "run")).headers.get("Location")!, "http://hub.test").searchParams.get(
      "started",
    )!;
    const shown = await (await browser.request(`/app/agents/${first.agentId}?started=${theirRun}`)).text();
    expect(startedNote(shown)).toBe(false);
    expect(shown).not.toContain(theirRun);
  });
});
