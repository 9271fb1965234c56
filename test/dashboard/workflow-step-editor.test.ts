import { describe, expect, it } from "vitest";
import { call, json } from "../helpers/api";
import { settled } from "../helpers/runs";
import { Browser, newEmail } from "./browser";

async function signedIn() {
  const browser = new Browser();
  await browser.register(newEmail());
  return browser;
}

async function submit(browser: Browser, path: string, form: Record<string, string>) {
  return browser.request(path, { form: { ...form, csrf_token: await browser.csrf(path) } });
}

async function createOnPage(browser: Browser, name: string, steps: unknown[]) {
  const response = await submit(browser, "/app/workflows", { step: "create", name, description: "", steps: JSON.stringify(steps) });
  expect(response.status).toBe(303);
  return Number(response.headers.get("Location")!.split("/").pop());
}

/** The saved workflow as the API sees it. */
async function saved(browser: Browser, id: number) {
  return json(await call(`/v1/workflows/${id}`, { token: await browser.apiKey() }));
}

const greet = [{ id: "greet", type: "set", values: { greeting: "Hello" } }];

describe("the workflow step editor", () => {
  it('"Run this step" runs a code step as typed, with the input given, and shows what it returned and logged, saving nothing', async () => {
    const browser = await signedIn();
    const id = await createOnPage(browser, "Totals", greet);
    const typed = JSON.stringify([
      ...greet,
      { id: "total", type: "code", code: 'console.log("items", input.items.length);\nreturn {sum: input.items.reduce((s, i) => s + i.price, 0)};' },
    ]);
    const response = await submit(browser, `/app/workflows/${id}`, {
      step: "test_step",
      name: "Totals",
      description: "",
      steps: typed,
      test_step_id: "",
      test_input: '{"items": [{"price": 2}, {"price": 5}]}',
    });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('<div id="edit-workflow-test-result" role="status" class="notice">');
    expect(html).toMatch(/Step &quot;total&quot; succeeded<\/strong> in \d+ ms \(not saved\)/);
    expect(html).toContain("&quot;sum&quot;: 7");
    expect(html).toContain('<pre tabindex="0">items 2</pre>');
    // The editor keeps what was typed, the only code step is offered, and the input stays.
    expect(html).toContain("return {sum: input.items.reduce((s, i) =&gt; s + i.price, 0)};");
    expect(html).toContain('<option value="total"></option>');
    expect(html).toContain("{&quot;items&quot;: [{&quot;price&quot;: 2}, {&quot;price&quot;: 5}]}</textarea>");
    // Nothing was saved: still one step, version 1.
    const workflow = await saved(browser, id);
    expect(workflow.steps).toHaveLength(1);
    expect(workflow.version).toBe(1);
  });

  it('"Run this step" shows the error with its line number and the lines logged before it; any other step runs too, bad input is refused', async () => {
    const browser = await signedIn();
    const id = await createOnPage(browser, "Failing", greet);
    const steps = JSON.stringify([
      ...greet,
      { id: "boom", type: "code", code: 'console.log("start");\nnull.price;' },
      { id: "other", type: "code", code: "return 1;" },
    ]);
    const form = { name: "Failing", description: "", steps, test_input: "" };
    const failed = await submit(browser, `/app/workflows/${id}`, { ...form, step: "test_step", test_step_id: "boom" });
    expect(failed.status).toBe(200);
    const html = await failed.text();
    expect(html).toContain('<div id="edit-workflow-test-result" role="status" class="error">');
    expect(html).toMatch(/Step &quot;boom&quot; failed/);
    expect(html).toMatch(/<p>TypeError: [^<]*\(line 2\)<\/p>/);
    expect(html).toContain('<pre tabindex="0">start</pre>');

    // Two code steps and no id: the person is asked which.
    const unnamed = await submit(browser, `/app/workflows/${id}`, { ...form, step: "test_step", test_step_id: "" });
    expect(unnamed.status).toBe(422);
    expect(await unnamed.text()).toContain("Name the code step to run: boom, other.");
    // Any step type runs on its own (DESIGN §6.5): the set step answers its values.
    const setStep = await submit(browser, `/app/workflows/${id}`, { ...form, step: "test_step", test_step_id: "greet" });
    expect(setStep.status).toBe(200);
    const setHtml = await setStep.text();
    expect(setHtml).toContain('<div id="edit-workflow-test-result" role="status"');
    expect(setHtml).toMatch(/greeting[^<]*Hello/);
    const badInput = await submit(browser, `/app/workflows/${id}`, { ...form, step: "test_step", test_step_id: "other", test_input: "{nope" });
    expect(badInput.status).toBe(422);
    expect(await badInput.text()).toContain("The step input is not valid JSON");
  });

  it("warns before saving about placeholders that would have no value, and saves only with Save anyway", async () => {
    const browser = await signedIn();
    const id = await createOnPage(browser, "Placeholders", greet);
    const steps = JSON.stringify([
      {
        id: "first",
        type: "set",
        values: { subject: "Hi {{input.name}}", late: "{{steps.second.result}}", typo: "{{greting}}", safe: '{{nick | default: "you"}}' },
      },
      { id: "second", type: "set", values: { ok: "{{steps.first.result}} {{subject}}" } },
      { id: "loop", type: "for_each", items: [1], steps: [{ id: "inner", type: "set", values: { n: "{{item}} {{index}}" } }] },
      { id: "after", type: "set", values: { stray: "{{item}}" } },
    ]);
    const form = { name: "Placeholders", description: "", steps };
    const warned = await submit(browser, `/app/workflows/${id}`, { ...form, step: "save" });
    expect(warned.status).toBe(200);
    const html = await warned.text();
    expect(html).toContain('<div class="warning" role="status" id="placeholder-warnings">');
    expect(html).toContain("<code>values.late</code>: {{steps.second.result}} has no value: no step &quot;second&quot; runs before this one.");
    expect(html).toContain("<code>values.typo</code>: {{greting}} has no value unless the run&#39;s input gives &quot;greting&quot;");
    expect(html).toContain("<code>values.stray</code>: {{item}} has no value");
    // Known values are not warned about: the run's input, earlier results and set values, a loop's item, a default.
    for (const quiet of ["{{input.name}}", "{{steps.first.result}}", "{{subject}}", "{{index}}", "{{nick"]) expect(html).not.toContain(`${quiet} has no value`);
    expect(html).toContain('<button type="submit" class="secondary" name="step" value="save_anyway" id="edit-workflow-save-anyway">Save anyway</button>');
    expect((await saved(browser, id)).version).toBe(1);

    const anyway = await submit(browser, `/app/workflows/${id}`, { ...form, step: "save_anyway" });
    expect(anyway.status).toBe(303);
    const workflow = await saved(browser, id);
    expect(workflow.version).toBe(2);
    expect(workflow.steps).toHaveLength(4);
  });

  it("saves at once when every placeholder has a value, and refuses invalid steps before warning", async () => {
    const browser = await signedIn();
    const id = await createOnPage(browser, "Clean", greet);
    const clean = JSON.stringify([...greet, { id: "again", type: "set", values: { text: "{{greeting}}, {{input.name}}" } }]);
    const response = await submit(browser, `/app/workflows/${id}`, { step: "save", name: "Clean", description: "", steps: clean });
    expect(response.status).toBe(303);
    const invalid = JSON.stringify([
      { id: "x", type: "set", values: { a: "{{missing}}" } },
      { id: "x", type: "set", values: {} },
    ]);
    const refused = await submit(browser, `/app/workflows/${id}`, { step: "save", name: "Clean", description: "", steps: invalid });
    expect(refused.status).toBe(422);
    const html = await refused.text();
    expect(html).toContain("is used twice");
    expect(html).not.toContain("placeholder-warnings");
  });

  it("an on_error handler: its steps read the failed step without a warning, and the graph shows them under it", async () => {
    const browser = await signedIn();
    const id = await createOnPage(browser, "Handled", greet);
    const steps = JSON.stringify([
      {
        id: "total",
        type: "tool",
        tool: "math_evaluate",
        arguments: { expression: "{{input.expression}}" },
        on_error: { steps: [{ id: "note", type: "set", values: { why: "{{steps.total.error.message}}" } }] },
      },
      { id: "after", type: "set", values: { outcome: "{{steps.total.status}}" } },
    ]);
    const response = await submit(browser, `/app/workflows/${id}`, { step: "save", name: "Handled", description: "", steps, active: "on" });
    expect(response.status).toBe(303);
    const page = await (await browser.request(`/app/workflows/${id}`)).text();
    expect(page).toContain("On error (then the run goes on)");
    expect(page).toContain('id="step-0-on_error-steps-0"');
    // A run that went on past the failure says how many failures were handled.
    const started = await submit(browser, `/app/workflows/${id}`, { step: "run", input: JSON.stringify({ expression: "2 *" }) });
    expect(started.status).toBe(303);
    const run = await settled(await browser.apiKey(), started.headers.get("Location")!.split("/").pop()!);
    expect(run).toMatchObject({ status: "succeeded", errors_handled: 1 });
    const runPage = await (await browser.request(`/app/executions/${run.id}`)).text();
    expect(runPage).toMatch(/Step failures handled \(on_error\)<\/dt>\s*<dd>1</);
  });

  it("warns before creating a workflow too, and creates it only with Create anyway", async () => {
    const browser = await signedIn();
    const steps = JSON.stringify([{ id: "note", type: "set", values: { text: "Hello {{name}}" } }]);
    const form = { name: "New with warning", description: "", steps };
    const warned = await submit(browser, "/app/workflows", { ...form, step: "create" });
    expect(warned.status).toBe(200);
    const html = await warned.text();
    expect(html).toContain("<code>values.text</code>: {{name}} has no value unless the run&#39;s input gives &quot;name&quot;");
    expect(html).toContain('id="new-workflow-create-anyway">Create anyway</button>');
    // The form keeps what was typed, and nothing was made.
    expect(html).toContain("Hello {{name}}");
    const key = await browser.apiKey();
    expect((await json(await call("/v1/workflows", { token: key }))).data).toEqual([]);
    const created = await submit(browser, "/app/workflows", { ...form, step: "create_anyway" });
    expect(created.status).toBe(303);
    expect((await json(await call("/v1/workflows", { token: key }))).data).toHaveLength(1);
  });
});
