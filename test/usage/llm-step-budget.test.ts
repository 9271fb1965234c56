import { describe, expect, it } from "vitest";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { modelRequests, newScenario, openai, script } from "../conversations/helpers";
import { settled } from "../helpers/runs";
import { connectPricedModel, deployAgent, sendWithVars } from "./helpers";

const PRICES = JSON.stringify({ "step-model": { input_per_mtok: 3, output_per_mtok: 15 } });
const costOf = (input: number, output: number) => (input * 3 + output * 15) / 1_000_000;

describe("llm steps under budgets (DESIGN §6.2)", () => {
  it("records each step's usage, and fails the step that would pass the run's budget with code budget_exceeded", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("usage-step");
    await connectPricedModel(key, scenario, "step-model");
    const steps = [
      { id: "draft", type: "llm", prompt: "Write a line." },
      { id: "polish", type: "llm", prompt: "Polish: {{steps.draft.result.text}}" },
    ];
    const agentId = await deployAgent(key, { provider: "openai", budget: { max_tokens_per_run: 100 } }, steps);
    await script(scenario, [openai.text("Spring is here.", { prompt_tokens: 90, completion_tokens: 30 }), openai.text("Never asked for.")]);

    // Run inline (Prefer: wait) so the run sees this request's MODEL_PRICES.
    const response = await sendWithVars({ MODEL_PRICES: PRICES }, key, `/v1/agents/${agentId}/execute`, {}, { Prefer: "wait=20" });
    expect(response.status).toBe(200);
    const run = await json(response);
    expect(run).toMatchObject({ status: "failed", failed_step_id: "polish", tokens_used: 120 });
    expect(run.error_message).toContain("agent_config.budget.max_tokens_per_run (100) reached: this run used 120 tokens.");
    const [draft, polish] = run.steps;
    expect(draft).toMatchObject({ step_id: "draft", status: "succeeded", tokens_used: 120 });
    expect(draft.usage).toEqual({ input_tokens: 90, output_tokens: 30, cost_usd: expect.any(Number), model: "step-model" });
    expect(draft.usage.cost_usd).toBeCloseTo(costOf(90, 30), 12);
    expect(draft.error_code).toBeUndefined();
    // Refused before the request: one attempt, no usage, the code naming why.
    expect(polish).toMatchObject({ step_id: "polish", status: "failed", attempts: 1, error_code: "budget_exceeded", usage: null, tokens_used: 0 });
    expect(polish.error_message).toBe("agent_config.budget.max_tokens_per_run (100) reached: this run used 120 tokens.");
    expect(await modelRequests(scenario)).toHaveLength(1);

    // The ledger has the run's request under its run, workflow and agent.
    const byWorkflow = await json(await call("/v1/usage?group_by=workflow", { token: key }));
    expect(byWorkflow.data).toEqual([{ key: String(run.workflow_id), input_tokens: 90, output_tokens: 30, cost_usd: draft.usage.cost_usd, model_calls: 1 }]);
    const byAgent = await json(await call("/v1/usage?group_by=agent", { token: key }));
    expect(byAgent.data.map((row: any) => row.key)).toEqual([agentId]);
  });

  it("counts every attempt's usage on the step, and max_usd_per_run stops a later attempt", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("usage-attempts");
    // Built-in price (gpt-4o-mini, $0.15 and $0.60 per million): the retries run from the queue, with the deployment's vars.
    await connectPricedModel(key, scenario);
    const steps = [{ id: "meta", type: "llm", prompt: "Give JSON.", output: "json", retry: { max_attempts: 3, delay_seconds: 0 } }];
    // $0.003 an attempt: the second brings the run to $0.006, past its $0.004, so the third is never asked.
    const agentId = await deployAgent(key, { provider: "openai", budget: { max_usd_per_run: 0.004 } }, steps);
    await script(scenario, [
      openai.text("Not JSON.", { prompt_tokens: 10_000, completion_tokens: 2_500 }),
      openai.text("Still not.", { prompt_tokens: 10_000, completion_tokens: 2_500 }),
      openai.text('{"never": "asked"}'),
    ]);
    const started = await call(`/v1/agents/${agentId}/execute`, { token: key, json: {} });
    expect(started.status).toBe(202);
    const run = await settled(key, (await json(started)).execution_id);
    expect(run).toMatchObject({ status: "failed", tokens_used: 25_000 });
    const [meta] = run.steps;
    expect(meta).toMatchObject({ status: "failed", attempts: 3, error_code: "budget_exceeded", tokens_used: 25_000 });
    expect(meta.usage).toEqual({ input_tokens: 20_000, output_tokens: 5_000, cost_usd: expect.any(Number), model: "gpt-4o-mini" });
    expect(meta.usage.cost_usd).toBeCloseTo(0.006, 12);
    expect(meta.error_message).toBe("agent_config.budget.max_usd_per_run ($0.004) reached: this run spent $0.006.");
    expect(await modelRequests(scenario)).toHaveLength(2);
  });
});
