// The dashboard's trace view: a waterfall of a run's or a turn's spans, reached from the
// execution's page ("Trace") and from an assistant message ("trace"); someone else's is the
// not-found page.
import { describe, expect, it } from "vitest";
import { call, json } from "../helpers/api";
import { Browser, newEmail } from "../dashboard/browser";
import { connectModel, newConversation, newScenario, openai, script } from "../conversations/helpers";
import { newWorkflow } from "../helpers/runs";

async function signedIn() {
  const browser = new Browser();
  await browser.register(newEmail());
  return { browser, key: await browser.apiKey() };
}

const page = async (browser: Browser, path: string) => {
  const response = await browser.request(path);
  return { status: response.status, html: await response.text() };
};

describe("the trace view", () => {
  it("draws a run's spans as a waterfall, linked from the execution's page", async () => {
    const { browser, key } = await signedIn();
    const workflow = await newWorkflow(key, {
      workflow_name: "Waterfall flow",
      steps: [
        { id: "sum", type: "tool", tool: "math_evaluate", arguments: { expression: "2 + 3" } },
        { id: "kept", type: "set", values: { done: true } },
      ],
    });
    const response = await call(`/v1/workflows/${workflow.id}/execute`, { token: key, json: { input_data: {} }, headers: { Prefer: "wait=30" } });
    const execution = await json(response);
    expect(execution.status).toBe("succeeded");

    const run = await page(browser, `/app/executions/${execution.id}`);
    expect(run.html).toContain(`<a href="/app/executions/${execution.id}/trace">Trace</a>`);
    const trace = await page(browser, `/app/executions/${execution.id}/trace`);
    expect(trace.status).toBe(200);
    expect(trace.html).toContain(`Trace of execution ${execution.id}`);
    expect(trace.html).toContain("<code>invoke_workflow Waterfall flow</code>");
    expect(trace.html).toContain("<code>execute_tool math_evaluate</code>");
    expect(trace.html).toContain("<code>set kept</code>");
    // One bar per span, placed within the run.
    expect(trace.html.match(/<div class="track" aria-hidden="true"><span class="[a-z]*" style="left:[\d.]+%;width:[\d.]+%"><\/span><\/div>/g)).toHaveLength(3);

    const stranger = await signedIn();
    const refused = await page(stranger.browser, `/app/executions/${execution.id}/trace`);
    expect(refused.status).toBe(404);
    expect(refused.html).not.toContain("math_evaluate");
  });

  it("draws a turn's spans, linked from its assistant message", async () => {
    const { browser, key } = await signedIn();
    const scenario = newScenario("tracepage");
    await connectModel(key, scenario);
    await script(scenario, [
      openai.toolCalls([{ id: "call_sum", name: "math_evaluate", args: { expression: "2 + 3" } }], { prompt_tokens: 61, completion_tokens: 7 }),
      openai.text("It is 5.", { prompt_tokens: 80, completion_tokens: 4 }),
    ]);
    const conversation = await newConversation(key);
    const reply = await json(await call(`/v1/conversations/${conversation}/messages`, { token: key, json: { content: "2 + 3?", provider: "openai" } }));
    expect(reply.status).toBe("completed");

    const chat = await page(browser, `/app/conversations/${conversation}`);
    const href = `/app/conversations/${conversation}/messages/${reply.id}/trace`;
    expect(chat.html).toContain(`<a href="${href}">trace</a>`);
    const trace = await page(browser, href);
    expect(trace.status).toBe(200);
    expect(trace.html).toContain("<code>invoke_agent</code>");
    expect(trace.html).toContain("<code>execute_tool math_evaluate</code>");
    expect(trace.html).toContain("<code>chat fake-gpt</code>");
    expect(trace.html).toContain("61 in, 7 out tokens");
    expect(trace.html).toContain("141 in, 11 out");

    const stranger = await signedIn();
    expect((await page(stranger.browser, href)).status).toBe(404);
    expect((await page(browser, `/app/conversations/${conversation}/messages/${reply.id + 500}/trace`)).status).toBe(404);
  });
});
