// Running an eval from an agent's page (DESIGN §6.3 Evals): the cases posted as JSON, the verdicts shown.
import { describe, expect, it } from "vitest";
import { call, json } from "../helpers/api";
import { connectModel, newScenario, openai, script } from "../conversations/helpers";
import { newWorkflow } from "../helpers/runs";
import { Browser, newEmail } from "./browser";

async function agentOfNewPerson() {
  const browser = new Browser();
  await browser.register(newEmail());
  const key = await browser.apiKey();
  const scenario = newScenario("evalpage");
  await connectModel(key, scenario);
  const workflow = await newWorkflow(key, { steps: [{ id: "work", type: "agent", prompt: "{{input.task}}" }] });
  const agentId = (await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id, agent_config: { provider: "openai" } } })))
    .agent_id;
  return { browser, key, scenario, agentId };
}

describe("the agent's eval page", () => {
  it("runs the posted cases and shows each verdict with what differed; bad JSON is shown, not run", async () => {
    const { browser, scenario, agentId } = await agentOfNewPerson();
    const path = `/app/agents/${agentId}/evals`;
    const form = await browser.request(path);
    expect(form.status).toBe(200);
    expect(await form.text()).toContain("Run the eval");
    expect(await (await browser.request(`/app/agents/${agentId}`)).text()).toContain(`href="${path}"`);

    await script(scenario, [openai.toolCalls([{ id: "c", name: "math_evaluate", args: { expression: "1+1" } }]), openai.text("Two.")]);
    const cases = JSON.stringify({
      cases: [{ name: "adds", input: "add 1 and 1", mocks: { math_evaluate: { result: 2 } }, expect: { output_contains: "Three" } }],
    });
    const ran = await browser.request(path, { form: { cases, csrf_token: await browser.csrf(path) } });
    expect(ran.status).toBe(201);
    const html = await ran.text();
    expect(html).toContain("0 passed, 1 failed");
    expect(html).toContain("adds: failed");
    expect(html).toContain("Expected the output to contain &quot;Three&quot;.");
    expect(html).toContain("Tools called: math_evaluate");

    const bad = await browser.request(path, { form: { cases: "{not json", csrf_token: await browser.csrf(path) } });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain("not valid JSON");
  });

  it("answers another person's agent as not found", async () => {
    const { agentId } = await agentOfNewPerson();
    const stranger = new Browser();
    await stranger.register(newEmail());
    expect((await stranger.request(`/app/agents/${agentId}/evals`)).status).toBe(404);
  });
});
