import { describe, expect, it } from "vitest";
import { call, json } from "../helpers/api";
import { Browser, newEmail } from "./browser";

async function signedIn() {
  const browser = new Browser();
  await browser.register(newEmail());
  return browser;
}

/** Posts a form of a page with that page's CSRF token, as a person clicking its button would. */
async function submit(browser: Browser, path: string, form: Record<string, string>, from = path) {
  return browser.request(path, { form: { ...form, csrf_token: await browser.csrf(from) } });
}

/** Creates a workflow through the "New workflow" form; answers its id. */
async function createOnPage(browser: Browser, name: string, steps: unknown[]) {
  const response = await submit(browser, "/app/workflows", { step: "create", name, description: "made on the page", steps: JSON.stringify(steps) });
  expect(response.status).toBe(303);
  const location = response.headers.get("Location")!;
  expect(location).toMatch(/^\/app\/workflows\/\d+$/);
  return Number(location.split("/").pop());
}

/** Clicks "Run workflow" with this input; answers the execution's id from the redirect. */
async function runOnPage(browser: Browser, workflowId: number, input: unknown = {}) {
  const response = await submit(browser, `/app/workflows/${workflowId}`, { step: "run", input: JSON.stringify(input) });
  expect(response.status).toBe(303);
  const location = response.headers.get("Location")!;
  expect(location).toMatch(/^\/app\/executions\/exe_/);
  return location.split("/").pop()!;
}

const page = async (browser: Browser, path: string) => {
  const response = await browser.request(path);
  return { status: response.status, html: await response.text() };
};

const scoring = [
  { id: "greet", type: "set", values: { greeting: "Hello" } },
  {
    id: "route",
    type: "condition",
    condition: { field: "input.score", operator: "greater_than", value: 10 },
    then: [{ id: "hot", type: "set", values: { tier: "hot" } }],
    else: [{ id: "cold", type: "set", values: { tier: "cold" } }],
  },
  { id: "each_lead", type: "for_each", items: [1, 2], steps: [{ id: "make_id", type: "tool", tool: "uuid_generate", arguments: {} }] },
];

describe("the dashboard's workflow pages", () => {
  it("creates a workflow from the page, lists it and draws every step, branches and loop body included", async () => {
    const browser = await signedIn();
    const id = await createOnPage(browser, "Lead scoring", scoring);
    const list = await page(browser, "/app/workflows");
    expect(list.html).toContain(`<a href="/app/workflows/${id}" aria-label="Open Lead scoring">Lead scoring</a>`);
    expect(list.html).toMatch(/data-label="Status">active</);
    expect(list.html).toMatch(/data-label="Steps">3</);

    const { status, html } = await page(browser, `/app/workflows/${id}`);
    expect(status).toBe(200);
    expect(html).toContain('<ol class="flow" aria-label="Steps of Lead scoring, in order">');
    // Each step is a box with its id and type, nested where it sits.
    for (const [anchor, stepId, type] of [
      ["step-0", "greet", "set"],
      ["step-1", "route", "condition"],
      ["step-1-then-0", "hot", "set"],
      ["step-1-else-0", "cold", "set"],
      ["step-2", "each_lead", "for_each"],
      ["step-2-steps-0", "make_id", "tool"],
    ]) {
      expect(html).toMatch(new RegExp(`<li id="${anchor}"[^>]*><p class="step-head"><code>${stepId}</code> <span class="step-type">${type}</span>`));
    }
    expect(html).toContain("Tool: <code>uuid_generate</code>");
    expect(html).toContain("If <code>input.score greater_than 10</code>");
    expect(html).toContain("Then (condition true)");
    expect(html).toContain("Else (condition false)");
    expect(html).toContain(`<a href="/app/agents/new?workflow_id=${id}">Deploy as an agent</a>`);
    // The page went through the same service as the API: the API sees the same steps.
    const key = await browser.apiKey();
    const saved = await json(await call(`/v1/workflows/${id}`, { token: key }));
    expect(saved).toMatchObject({ name: "Lead scoring", description: "made on the page", version: 1 });
    expect(saved.steps.map((s: any) => s.id)).toEqual(["greet", "route", "each_lead"]);
  });

  it("shows each validation problem under the step it belongs to (nested ones too), with 422 and the JSON kept", async () => {
    const browser = await signedIn();
    const id = await createOnPage(browser, "Router", scoring.slice(0, 1));
    const broken = [
      { id: "start", type: "set", values: { a: 1 } },
      {
        id: "route",
        type: "condition",
        condition: { field: "input.x", operator: "equals", value: 1 },
        then: [{ id: "inner", type: "condition", condition: { field: "x", operator: "roughly", value: 1 }, then: [], else: [] }],
        else: [{ id: "send", type: "tool", arguments: {} }],
      },
    ];
    const entered = JSON.stringify(broken, null, 2);
    const refused = await submit(browser, `/app/workflows/${id}`, { step: "save", name: "Router", description: "", active: "on", steps: entered });
    expect(refused.status).toBe(422);
    const html = await refused.text();
    expect(html).toContain('role="alert"');
    // Grouped under the nested steps' ids, each linked to its box in the graph of what was entered.
    expect(html).toContain('<a href="#step-1-then-0">Step &quot;inner&quot; (condition)</a>');
    expect(html).toContain('<a href="#step-1-else-0">Step &quot;send&quot; (tool)</a>');
    expect(html).toMatch(/<a href="#step-1-else-0">[^<]*<\/a><ul><li><code>tool<\/code>: /);
    expect(html).toMatch(/<li id="step-1-then-0" class="type-condition has-error"/);
    expect(html).toContain("Steps as entered (not saved)");
    // The JSON entered is kept in the editor, as typed.
    const textarea = html.match(/<textarea id="edit-workflow-steps"[^>]*>([^<]*)<\/textarea>/)![1]!;
    expect(textarea.replaceAll("&quot;", '"')).toBe(entered);
    // Nothing was saved.
    const key = await browser.apiKey();
    expect((await json(await call(`/v1/workflows/${id}`, { token: key }))).version).toBe(1);

    // JSON that does not parse: the parser's message, and the text kept.
    const garbled = await submit(browser, `/app/workflows/${id}`, { step: "save", name: "Router", description: "", active: "on", steps: '[{"id": ' });
    expect(garbled.status).toBe(422);
    const garbledHtml = await garbled.text();
    expect(garbledHtml).toContain("The steps are not valid JSON:");
    expect(garbledHtml).toContain("[{&quot;id&quot;: </textarea>");

    // The "New workflow" form groups problems by step too: a tool step without its tool.
    const created = await submit(browser, "/app/workflows", {
      step: "create",
      name: "No tool",
      description: "",
      steps: JSON.stringify([{ id: "send", type: "tool", arguments: {} }]),
    });
    expect(created.status).toBe(422);
    const createdHtml = await created.text();
    expect(createdHtml).toContain("<strong>Step &quot;send&quot; (tool)</strong>");
    expect(createdHtml).toContain("&quot;id&quot;:&quot;send&quot;");
  });

  it("saves changes (a new version), pauses with Active unticked, and refuses to run a paused workflow", async () => {
    const browser = await signedIn();
    const id = await createOnPage(browser, "Editable", scoring.slice(0, 1));
    const steps = JSON.stringify([{ id: "greet", type: "set", values: { greeting: "Hi" } }]);
    const saved = await submit(browser, `/app/workflows/${id}`, { step: "save", name: "Edited", description: "new words", steps });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("Location")).toBe(`/app/workflows/${id}?saved=1`);
    const { html } = await page(browser, `/app/workflows/${id}?saved=1`);
    expect(html).toContain("Changes saved.");
    expect(html).toContain("Status: inactive (paused) · version 2");
    const refused = await submit(browser, `/app/workflows/${id}`, { step: "run", input: "{}" });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("The workflow is paused; set its status to active to run it.");
    const badInput = await submit(browser, `/app/workflows/${id}`, { step: "run", input: "[1, 2]" });
    expect(badInput.status).toBe(422);
    expect(await badInput.text()).toContain("The input must be a JSON object");
  });

  it("runs a set and condition workflow and shows the execution with each step succeeded", async () => {
    const browser = await signedIn();
    const id = await createOnPage(browser, "Scoring run", scoring.slice(0, 2));
    const executionId = await runOnPage(browser, id, { score: 42 });
    const { status, html } = await page(browser, `/app/executions/${executionId}`);
    expect(status).toBe(200);
    expect(html).toContain('Status: <span class="badge succeeded">succeeded</span>');
    expect(html).not.toContain("This run is still");
    for (const stepId of ["greet", "route", "hot"]) {
      expect(html).toMatch(new RegExp(`<code>${stepId}</code> <span class="step-type">[a-z_]+</span> <span class="badge succeeded">succeeded</span>`));
    }
    expect(html).toContain("<summary>Result of hot</summary>");
    expect(html).toContain("&quot;score&quot;: 42");
    expect(html).not.toMatch(/>Retry</);
    // The workflow page lists it among its recent executions.
    const workflowPage = await page(browser, `/app/workflows/${id}`);
    expect(workflowPage.html).toContain(`<a href="/app/executions/${executionId}"><code>${executionId}</code></a>`);
  });

  it("retries a failed run: a new execution with retry_of, once", async () => {
    const browser = await signedIn();
    const id = await createOnPage(browser, "Breaks", [
      { id: "ok", type: "set", values: { a: 1 } },
      { id: "broken", type: "tool", tool: "math_evaluate", arguments: { expression: "1 / 0" } },
    ]);
    const failed = await runOnPage(browser, id);
    const { html } = await page(browser, `/app/executions/${failed}`);
    expect(html).toContain('Status: <span class="badge failed">failed</span>');
    expect(html).toContain("Go to the step that failed (broken)");
    expect(html).toMatch(/<button type="submit" name="step" value="retry">Retry<\/button>/);

    const retried = await submit(browser, `/app/executions/${failed}`, { step: "retry" });
    expect(retried.status).toBe(303);
    const retryId = retried.headers.get("Location")!.split("/").pop()!;
    expect(retryId).not.toBe(failed);
    const retryPage = await page(browser, `/app/executions/${retryId}`);
    expect(retryPage.html).toContain(`Retry of <a href="/app/executions/${failed}"><code>${failed}</code></a>`);
    const key = await browser.apiKey();
    expect((await json(await call(`/v1/executions/${retryId}`, { token: key }))).retry_of).toBe(failed);
    const again = await submit(browser, `/app/executions/${failed}`, { step: "retry" });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain(`already retried as ${retryId}`);
  });

  it("cancels a run waiting for an event", async () => {
    const browser = await signedIn();
    const id = await createOnPage(browser, "Approval", [{ id: "approve", type: "wait_for_event", event: "approved", timeout_seconds: 3600 }]);
    const started = Date.now();
    const executionId = await runOnPage(browser, id);
    // A parked run ends the wait at once: nothing will happen until the event.
    expect(Date.now() - started).toBeLessThan(8000);
    const waiting = await page(browser, `/app/executions/${executionId}`);
    expect(waiting.html).toContain('Status: <span class="badge waiting">waiting</span>');
    expect(waiting.html).toContain(`<a href="/app/executions/${executionId}">Refresh</a>`);
    const cancelled = await submit(browser, `/app/executions/${executionId}`, { step: "cancel" });
    expect(cancelled.status).toBe(303);
    expect(cancelled.headers.get("Location")).toBe(`/app/executions/${executionId}`);
    const after = await page(browser, `/app/executions/${executionId}`);
    expect(after.html).toContain('Status: <span class="badge cancelled">cancelled</span>');
    expect(after.html).toContain("Cancelled on request.");
    expect(after.html).not.toMatch(/value="cancel"/);
  });

  it("turns a conversation's tool calls into a workflow; someone else's conversation is not found", async () => {
    const browser = await signedIn();
    const key = await browser.apiKey();
    const conversation = (await json(await call("/v1/conversations", { token: key, json: { title: "Ids" } }))).id;
    expect((await call(`/v1/conversations/${conversation}/messages`, { token: key, json: { content: "generate a uuid please" } })).status).toBe(201);
    const created = await submit(browser, "/app/workflows", { step: "from_conversation", conversation_id: String(conversation) }, "/app/workflows");
    expect(created.status).toBe(303);
    const workflowPath = created.headers.get("Location")!;
    expect(workflowPath).toMatch(/^\/app\/workflows\/\d+$/);
    const { html } = await page(browser, workflowPath);
    expect(html).toContain(`From conversation ${conversation}`);
    expect(html).toContain("Tool: <code>uuid_generate</code>");

    const stranger = await signedIn();
    const refused = await submit(stranger, "/app/workflows", { step: "from_conversation", conversation_id: String(conversation) }, "/app/workflows");
    expect(refused.status).toBe(404);
  });

  it("answers someone else's workflow and execution with a not-found page, and changes nothing of theirs", async () => {
    const owner = await signedIn();
    const id = await createOnPage(owner, "Private flow", [{ id: "hold", type: "wait_for_event", event: "go", timeout_seconds: 3600 }]);
    const executionId = await runOnPage(owner, id, { secret_input: "owner-only" });
    const stranger = await signedIn();
    for (const path of [`/app/workflows/${id}`, `/app/executions/${executionId}`]) {
      const seen = await page(stranger, path);
      expect(seen.status).toBe(404);
      expect(seen.html).not.toContain("Private flow");
      expect(seen.html).not.toContain("owner-only");
    }
    const form = (step: string) => ({ step, name: "Taken", description: "", steps: "[]", input: "{}" });
    for (const step of ["save", "run", "delete"]) {
      expect((await submit(stranger, `/app/workflows/${id}`, form(step), "/app/workflows")).status).toBe(404);
    }
    for (const step of ["cancel", "retry"]) {
      expect((await submit(stranger, `/app/executions/${executionId}`, { step }, "/app/workflows")).status).toBe(404);
    }
    expect((await page(stranger, "/app/workflows/999999999")).status).toBe(404);
    expect((await page(stranger, "/app/executions/not-an-id!")).status).toBe(404);
    const still = await page(owner, `/app/workflows/${id}`);
    expect(still.html).toContain("<h1>Private flow</h1>");
    expect((await page(owner, `/app/executions/${executionId}`)).html).toContain('class="badge waiting"');
  });

  it("refuses forms without the CSRF token, and deletes with it", async () => {
    const browser = await signedIn();
    const id = await createOnPage(browser, "Keep me", scoring.slice(0, 1));
    const planted = await browser.request("/app/workflows", { form: { step: "create", name: "Planted", description: "", steps: "[]" } });
    expect(planted.status).toBe(403);
    expect((await browser.request(`/app/workflows/${id}`, { form: { step: "delete" } })).status).toBe(403);
    expect((await browser.request(`/app/workflows/${id}`, { form: { step: "run", input: "{}" } })).status).toBe(403);
    const list = await page(browser, "/app/workflows");
    expect(list.html).not.toContain("Planted");
    expect(list.html).toContain("Keep me");
    expect((await page(browser, `/app/workflows/${id}`)).html).toContain("Not run yet.");

    const workflowPage = await page(browser, `/app/workflows/${id}`);
    expect(workflowPage.html).toContain('aria-label="Delete Keep me"');
    const deleted = await submit(browser, `/app/workflows/${id}`, { step: "delete" });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get("Location")).toBe("/app/workflows");
    expect((await page(browser, `/app/workflows/${id}`)).status).toBe(404);
    // Signed out, the pages send the person to sign in.
    expect((await call("/app/workflows")).status).toBe(303);
  });

  it("shows at most 200 step records of a long loop and says how many more the API has", async () => {
    const browser = await signedIn();
    const items = Array.from({ length: 120 }, (_, index) => index);
    const id = await createOnPage(browser, "Long loop", [
      {
        id: "each",
        type: "for_each",
        items,
        steps: [
          { id: "first", type: "set", values: { a: "{{item}}" } },
          { id: "second", type: "set", values: { b: "{{index}}" } },
        ],
      },
    ]);
    const executionId = await runOnPage(browser, id);
    const key = await browser.apiKey();
    let execution = await json(await call(`/v1/executions/${executionId}`, { token: key }));
    for (let tries = 0; execution.status !== "succeeded" && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      execution = await json(await call(`/v1/executions/${executionId}`, { token: key }));
    }
    expect(execution.status).toBe("succeeded");
    const total = execution.steps.length as number;
    expect(total).toBeGreaterThanOrEqual(240);
    const { html } = await page(browser, `/app/executions/${executionId}`);
    expect(html.match(/<li id="record-\d+"/g)).toHaveLength(200);
    expect(html).toContain(`The first 200 of ${total} step records.`);
    expect(html).toContain(`${total - 200} more steps: see <code>GET /v1/executions/${executionId}</code>.`);
    // Results scroll in a focusable box, so a keyboard can scroll them.
    expect(html).toMatch(/<div class="scroll"><pre tabindex="0">/);
  });

  it("refuses run input and steps nested deeper than the API allows, with the API's message", async () => {
    const browser = await signedIn();
    const id = await createOnPage(browser, "Deep", scoring.slice(0, 1));
    const deep = `${'{"a":'.repeat(130)}1${"}".repeat(130)}`;
    const refused = await submit(browser, `/app/workflows/${id}`, { step: "run", input: deep });
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain("The value is nested deeper than 127 levels.");
    const deepSteps = `[${'{"a":'.repeat(130)}1${"}".repeat(130)}]`;
    const saved = await submit(browser, `/app/workflows/${id}`, { step: "save", name: "Deep", description: "", steps: deepSteps });
    expect(saved.status).toBe(422);
    expect(await saved.text()).toContain("The value is nested deeper than 127 levels.");
    // The recent executions table has a caption for screen readers.
    expect((await page(browser, `/app/workflows/${id}`)).html).not.toContain("<caption");
    await runOnPage(browser, id);
    expect((await page(browser, `/app/workflows/${id}`)).html).toContain('<caption class="visually-hidden">Recent executions, newest first</caption>');
  });
});
