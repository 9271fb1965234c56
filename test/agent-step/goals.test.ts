// Goals (DESIGN §6.3): a run of an agent with agent_config.goal gets a verdict when it ends, and
// monitoring.success_count counts the runs whose goal was met.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { connectModel, modelRequests, newScenario, openai, script } from "../conversations/helpers";
import { newWorkflow } from "../helpers/runs";

const SUM = { id: "call_sum", name: "math_evaluate", args: { expression: "40 + 2" } };

async function person() {
  const { key } = await newApiKey(await newUser());
  const scenario = newScenario("goals");
  await connectModel(key, scenario);
  return { key, scenario };
}

/** Deploys a one-`agent`-step workflow as an agent with `config` (provider openai); answers its id. */
async function deploy(key: string, config: Record<string, unknown>, step: Record<string, unknown> = {}) {
  const workflow = await newWorkflow(key, { steps: [{ id: "work", type: "agent", prompt: "{{input.message}}", tools: ["math_*"], ...step }] });
  const response = await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id, agent_config: { provider: "openai", ...config } } });
  expect(response.status).toBe(201);
  return (await json(response)).agent_id as string;
}

/** Runs the agent inline (Prefer: wait) and answers the finished execution. */
async function run(key: string, agentId: string, input: Record<string, unknown> = { message: "Add 40 and 2" }) {
  const response = await call(`/v1/agents/${agentId}/execute`, { token: key, json: input, headers: { Prefer: "wait=20" } });
  expect(response.status).toBe(200);
  return json(response);
}

/** Waits (bounded) for a judged run's verdict, then answers the execution as the API shows it. */
async function judged(key: string, executionId: string) {
  const deadline = Date.now() + 10_000;
  while (!(await env.DB.prepare("SELECT verdict FROM executions WHERE id = ?").bind(executionId).first<{ verdict: string | null }>())?.verdict) {
    if (Date.now() > deadline) throw new Error(`execution ${executionId} has no verdict`);
    await scheduler.wait(50);
  }
  return json(await call(`/v1/executions/${executionId}`, { token: key }));
}

const monitoring = async (key: string, agentId: string) => (await json(await call(`/v1/agents/${agentId}`, { token: key }))).monitoring;

describe("goals and verdicts", () => {
  it("meets the goal when the run succeeded, called the listed tools and its output fits; success_count counts it", async () => {
    const { key, scenario } = await person();
    const schema = { type: "object", properties: { sum: { type: "integer" } }, required: ["sum"] };
    const agentId = await deploy(key, { goal: { description: "Add the numbers", success: { tools_called: ["math_evaluate"], output_schema: schema } } });
    await script(scenario, [openai.toolCalls([SUM]), openai.text('{"sum": 42}')]);
    const execution = await run(key, agentId);
    expect(execution).toMatchObject({ status: "succeeded", verdict: "goal_met" });
    expect(execution.verdict_reason).toContain("math_evaluate");
    const read = await json(await call(`/v1/executions/${execution.id}`, { token: key }));
    expect(read).toMatchObject({ verdict: "goal_met", verdict_reason: execution.verdict_reason });
    expect(await monitoring(key, agentId)).toMatchObject({ execution_count: 1, success_count: 1, failure_count: 0, success_rate: 100 });
  });

  it("misses the goal when a listed tool was not called, naming it; success_count does not count the run", async () => {
    const { key, scenario } = await person();
    const agentId = await deploy(key, { goal: { description: "Add and stamp", success: { tools_called: ["math_evaluate", "uuid_generate"] } } });
    await script(scenario, [openai.toolCalls([SUM]), openai.text("42")]);
    const execution = await run(key, agentId);
    expect(execution).toMatchObject({ status: "succeeded", verdict: "goal_not_met" });
    expect(execution.verdict_reason).toBe("Not called successfully: uuid_generate.");
    expect(await monitoring(key, agentId)).toMatchObject({ execution_count: 1, success_count: 0, failure_count: 0, success_rate: 0 });
  });

  it("misses the goal when the final output does not fit output_schema, and when the run failed", async () => {
    const { key, scenario } = await person();
    const schema = { type: "object", properties: { sum: { type: "integer" } }, required: ["sum"] };
    const agentId = await deploy(key, { goal: { description: "Add", success: { output_schema: schema } } });
    await script(scenario, [openai.text('```json\n{"total": 42}\n```')]);
    const missed = await run(key, agentId);
    expect(missed).toMatchObject({ status: "succeeded", verdict: "goal_not_met" });
    expect(missed.verdict_reason).toMatch(/^The final output does not match success\.output_schema: /);

    expect(await monitoring(key, agentId)).toMatchObject({ execution_count: 1, success_count: 0, failure_count: 0 });

    // A run that fails (its agent step runs out of steps) misses its goal too, and counts as a failure.
    const limited = await deploy(key, { goal: { description: "Add", success: {} } }, { max_steps: 1 });
    await script(scenario, [openai.toolCalls([SUM])]);
    const failed = await run(key, limited);
    expect(failed).toMatchObject({ status: "failed", verdict: "goal_not_met" });
    expect(failed.verdict_reason).toMatch(/^The run failed: /);
    expect(await monitoring(key, limited)).toMatchObject({ execution_count: 1, success_count: 0, failure_count: 1 });
  });

  it("asks the agent's model as judge: yes meets the goal, no does not, and the judge's request is metered under the run", async () => {
    const { key, scenario } = await person();
    const agentId = await deploy(key, { goal: { description: "Greet the user warmly", success: { judge: true } } }, { tools: [] });
    await script(scenario, [
      openai.text("Hello, dear friend!"),
      openai.text('{"achieved": true, "reason": "The greeting is warm."}', { prompt_tokens: 70, completion_tokens: 10 }),
    ]);
    const yes = await judged(key, (await run(key, agentId, { message: "Greet me" })).id);
    expect(yes).toMatchObject({ status: "succeeded", verdict: "goal_met" });
    expect(yes.verdict_reason).toContain("The judge: The greeting is warm.");
    const requests = await modelRequests(scenario);
    expect(requests).toHaveLength(2);
    expect(JSON.stringify(requests[1].body.messages)).toContain("Greet the user warmly");
    expect(JSON.stringify(requests[1].body.messages)).toContain("Hello, dear friend!");
    // The judge's request is in the ledger, under the run and the agent.
    const byAgent = await json(await call("/v1/usage?group_by=agent", { token: key }));
    expect(byAgent.data).toEqual([expect.objectContaining({ key: agentId, input_tokens: 150 + 70, output_tokens: 30 + 10, model_calls: 2 })]);
    expect(await monitoring(key, agentId)).toMatchObject({ execution_count: 1, success_count: 1 });

    await script(scenario, [openai.text("Go away."), openai.text('{"achieved": false, "reason": "That is rude."}')]);
    const no = await judged(key, (await run(key, agentId, { message: "Greet me" })).id);
    expect(no).toMatchObject({ status: "succeeded", verdict: "goal_not_met", verdict_reason: "The judge: That is rude." });

    // A judge that cannot answer (its request fails) is a goal not met, saying so.
    await script(scenario, [openai.text("Hi."), { status: 500, body: { error: { message: "down" } } }]);
    const broken = await judged(key, (await run(key, agentId, { message: "Greet me" })).id);
    expect(broken).toMatchObject({ status: "succeeded", verdict: "goal_not_met" });
    expect(broken.verdict_reason).toMatch(/^The judge could not answer: /);
    expect(await monitoring(key, agentId)).toMatchObject({ execution_count: 3, success_count: 1, failure_count: 0 });
  });

  it("gives no verdict to the runs of an agent without a goal, whose succeeded runs count as before", async () => {
    const { key, scenario } = await person();
    const agentId = await deploy(key, {});
    await script(scenario, [openai.text("42")]);
    const execution = await run(key, agentId);
    expect(execution).toMatchObject({ status: "succeeded", verdict: null, verdict_reason: null });
    expect(await monitoring(key, agentId)).toMatchObject({ execution_count: 1, success_count: 1 });
  });

  it("chat-agent makes an agent whose workflow is one agent step, which runs with the run's input as its prompt", async () => {
    const { key, scenario } = await person();
    const response = await call("/v1/workflows/chat-agent", {
      token: key,
      json: {
        description: "You add numbers.\nAnswer with the sum only.",
        agent_config: { provider: "openai", goal: { description: "Add", success: { tools_called: ["math_evaluate"] } } },
      },
    });
    expect(response.status).toBe(201);
    const created = await json(response);
    expect(created.workflow).toMatchObject({
      name: "You add numbers.",
      steps: [{ id: "agent", type: "agent", prompt: "{{input}}", instructions: "You add numbers.\nAnswer with the sum only." }],
    });
    await script(scenario, [openai.toolCalls([SUM]), openai.text("42")]);
    const execution = await run(key, created.agent.agent_id, { message: "Add 40 and 2" });
    expect(execution).toMatchObject({ status: "succeeded", verdict: "goal_met" });
    expect(execution.steps[0]).toMatchObject({
      step_id: "agent",
      type: "agent",
      result: { text: "42", tool_calls: [{ name: "math_evaluate", success: true }] },
    });
    const [first] = await modelRequests(scenario);
    expect(first.body.messages[0].content).toContain("You add numbers.\nAnswer with the sum only.");
    expect(first.body.messages[1]).toMatchObject({ role: "user", content: '{"message":"Add 40 and 2"}' });
  });

  it("refuses a malformed goal with 422 naming the field", async () => {
    const { key } = await person();
    const workflow = await newWorkflow(key, { steps: [{ id: "work", type: "agent", prompt: "Hi" }] });
    const deploy = (goal: unknown) => call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id, agent_config: { goal } } });
    const cases: [unknown, string][] = [
      [{ success: {} }, "agent_config.goal.description"],
      [{ description: "Do it", success: { tools_called: "math_evaluate" } }, "agent_config.goal.success.tools_called"],
      [{ description: "Do it", success: { output_schema: { type: "string", pattern: "(a+)+\\1" } } }, "agent_config.goal.success.output_schema"],
      [{ description: "Do it", success: { judge: "yes" } }, "agent_config.goal.success.judge"],
      [{ description: "Do it", success: { tools: ["x"] } }, "agent_config.goal.success.tools"],
      ["win", "agent_config.goal"],
    ];
    for (const [goal, field] of cases) {
      const response = await deploy(goal);
      expect(response.status, JSON.stringify(goal)).toBe(422);
      const problem = await json(response);
      expect(problem.errors.map((e: any) => e.field)).toContain(field);
    }
  });
});
