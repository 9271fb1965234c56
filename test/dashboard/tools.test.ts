import { describe, expect, it } from "vitest";
import { call, json } from "../helpers/api";
import { connectMcp } from "../conversations/helpers";
import { Browser, newEmail } from "./browser";

async function signedIn() {
  const browser = new Browser();
  await browser.register(newEmail());
  return browser;
}

/** Posts the tool's run form (or its live variant) with the page's CSRF token. */
async function run(browser: Browser, tool: string, args: Record<string, string>, path = "") {
  const csrf = await browser.csrf(`/app/tools/${tool}`);
  return browser.request(`/app/tools/${tool}${path}`, { form: { csrf_token: csrf, ...args } });
}

/** The events of a text/event-stream answer, in order. */
async function eventsOf(response: Response) {
  const text = await response.text();
  return [...text.matchAll(/^event: (\w+)\ndata: (.*)$/gm)].map((m) => ({ event: m[1]!, data: JSON.parse(m[2]!) }));
}

describe("the tools pages", () => {
  it("searches the catalog by name and description and links each tool's page", async () => {
    const browser = await signedIn();
    const all = await (await browser.request("/app/tools")).text();
    expect(all).toContain('<label for="tool-search">Search tools</label>');
    expect(all).toContain('<a href="/app/tools/math_evaluate">Open <code>math_evaluate</code></a>');
    expect(all).toContain('<a href="/app/tools/wait">Open <code>wait</code></a>');

    // "arithmetic" is in math_evaluate's description only.
    const found = await (await browser.request("/app/tools?q=ARITHMETIC")).text();
    expect(found).toContain("Open <code>math_evaluate</code>");
    expect(found).not.toContain("Open <code>wait</code>");
    expect(found).toContain('value="ARITHMETIC"');
    const none = await (await browser.request("/app/tools?q=zebra%20lighthouse")).text();
    expect(none).toMatch(/0 of \d+ tools match/);
    expect(none).not.toContain("Open <code>");
    // Signed out, the page sends the person to sign in.
    expect((await call("/app/tools")).status).toBe(303);
  });

  it("builds the form from the input schema and runs math_evaluate: 6*7 is 42, audited like an API call", async () => {
    const browser = await signedIn();
    const form = await (await browser.request("/app/tools/math_evaluate")).text();
    expect(form).toMatch(/<label for="arg-0">expression<span class="required"> \(required\)<\/span><\/label>/);
    expect(form).toMatch(/<input type="text" value="" required="" id="arg-0" name="arg.expression"|<textarea[^>]*id="arg-0" name="arg.expression"/);
    // A nested object is typed as JSON, starting from the schema's default.
    expect(form).toMatch(/<label for="arg-1">variables \(JSON\)<\/label>/);
    expect(form).toMatch(/<textarea[^>]*name="arg.variables"[^>]*>\{\}<\/textarea>/);
    expect(form).toContain('<script src="/app/assets/live.js" defer=""></script>');

    const ran = await run(browser, "math_evaluate", { "arg.expression": "6*7", "arg.variables": "{}" });
    expect(ran.status).toBe(200);
    const page = await ran.text();
    expect(page).toContain("&quot;result&quot;: 42");
    expect(page).toMatch(/<li>Started math_evaluate \(call_[\w-]+\)\.<\/li><li>Succeeded in \d+ ms\.<\/li><li>Finished\.<\/li>/);
    // The value typed stays in the form.
    expect(page).toContain("6*7");

    const key = await browser.apiKey();
    const audit = await json(await call("/v1/audit-logs", { token: key }));
    expect(audit.data[0]).toMatchObject({ tool: "math_evaluate", source: "dashboard", outcome: "success", arguments: { expression: "6*7" } });
  });

  it("shows invalid arguments next to the form (422) and keeps what was typed", async () => {
    const browser = await signedIn();
    const unreadable = await run(browser, "math_evaluate", { "arg.expression": "1+1", "arg.variables": "{not json" });
    expect(unreadable.status).toBe(422);
    const first = await unreadable.text();
    expect(first).toContain('role="alert"');
    expect(first).toMatch(/<p class="field-error" id="arg-1-error">This is not valid JSON: [^<]+<\/p>/);
    expect(first).toContain('aria-invalid="true"');
    expect(first).toContain("{not json</textarea>");

    // Nested deeper than the API's body may be (the argument sits two levels down): the API's message.
    const deep = await run(browser, "math_evaluate", { "arg.expression": "1+1", "arg.variables": `${'{"a":'.repeat(130)}1${"}".repeat(130)}` });
    expect(deep.status).toBe(422);
    expect(await deep.text()).toMatch(/<p class="field-error" id="arg-1-error">The value is nested deeper than 126 levels\.<\/p>/);

    // Read, but refused by the tool's own schema: the executor's message, beside the field.
    const refused = await run(browser, "math_evaluate", { "arg.expression": "x * 2", "arg.variables": '{"x": "seven"}' });
    expect(refused.status).toBe(422);
    const second = await refused.text();
    expect(second).toContain("The arguments do not fit the tool&#39;s input schema.");
    expect(second).toMatch(/<p class="field-error" id="arg-1-error">variables.x: [^<]+<\/p>/);
    expect(second).toContain(">x * 2</textarea>");
    expect(second).not.toContain("Started math_evaluate");

    // A tool that runs and fails answers with its error, not a result.
    const failed = await (await run(browser, "math_evaluate", { "arg.expression": "1/0" })).text();
    expect(failed).toContain("The tool failed: The result is not a finite number");
  });

  it("lists the progress events a tool emitted, in order", async () => {
    const browser = await signedIn();
    const page = await (await run(browser, "wait", { "arg.seconds": "1" })).text();
    const items = [...page.matchAll(/<li>([^<]*)<\/li>/g)].map((m) => m[1]);
    expect(items.filter((item) => /^(Started|Progress|Succeeded|Finished)/.test(item!))).toEqual([
      expect.stringMatching(/^Started wait/),
      "Progress 1 of 1: waited 1 s",
      expect.stringMatching(/^Succeeded in \d+ ms\.$/),
      "Finished.",
    ]);
  });

  it("streams a live run as server-sent events: start, result, end; refusals come before the stream as JSON", async () => {
    const browser = await signedIn();
    const streamed = await run(browser, "math_evaluate", { "arg.expression": "6*7" }, "/stream");
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get("Content-Type")).toContain("text/event-stream");
    const events = await eventsOf(streamed);
    expect(events.map((e) => e.event)).toEqual(["start", "result", "end"]);
    expect(events[1]!.data).toMatchObject({ name: "math_evaluate", success: true, result: { result: 42 } });

    const refused = await run(browser, "math_evaluate", { "arg.expression": "" }, "/stream");
    expect(refused.status).toBe(422);
    expect(await json(refused)).toMatchObject({ error: "The arguments do not fit the tool's input schema.", errors: [{ field: "expression" }] });
    const noToken = await browser.request("/app/tools/math_evaluate/stream", { form: { "arg.expression": "1" } });
    expect(noToken.status).toBe(403);
  });

  it("refuses a run without the CSRF token, and shows someone else's MCP tool as not found", async () => {
    const owner = await signedIn();
    const mcpId = await connectMcp(await owner.apiKey());
    const tool = `mcp_${mcpId}_echo`;
    const mine = await (await owner.request(`/app/tools/${tool}`)).text();
    expect(mine).toMatch(/<label for="arg-0">message/);
    const echoed = await (await run(owner, tool, { "arg.message": "hello from the dashboard" })).text();
    expect(echoed).toContain("hello from the dashboard");

    expect((await owner.request("/app/tools/math_evaluate", { form: { "arg.expression": "1" } })).status).toBe(403);

    const stranger = await signedIn();
    const page = await stranger.request(`/app/tools/${tool}`);
    expect(page.status).toBe(404);
    expect(await page.text()).not.toContain("message");
    const csrf = await stranger.csrf("/app/tools");
    expect((await stranger.request(`/app/tools/${tool}`, { form: { csrf_token: csrf, "arg.message": "x" } })).status).toBe(404);
    expect((await stranger.request(`/app/tools/${tool}/stream`, { form: { csrf_token: csrf, "arg.message": "x" } })).status).toBe(404);
  });

  it("serves the enhancement script from this origin, never cached", async () => {
    const response = await call("/app/assets/live.js");
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("text/javascript; charset=utf-8");
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    const script = await response.text();
    expect(script).toContain("EventSource");
    expect(script).toContain("data-live-stream");
    // Valid JavaScript: it parses.
    expect(() => new Function(script)).not.toThrow();
  });
});
