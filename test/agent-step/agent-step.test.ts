// The `agent` step (DESIGN §6.3): the chat turn's loop inside a run, its journal checkpointed
// after each answer and tool result, policies that park the run for a person, and structured
// output with one repair.
import { describe, expect, it } from "vitest";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { connectModel, modelRequests, newScenario, openai, script } from "../conversations/helpers";
import { execute, newWorkflow, reaches, settled } from "../helpers/runs";

async function person() {
  const { key } = await newApiKey(await newUser());
  const scenario = newScenario("agentstep");
  await connectModel(key, scenario);
  return { key, scenario };
}

describe("the agent step", () => {
  it("works through its prompt with tools called together, and answers with its text, calls, steps and usage", async () => {
    const { key, scenario } = await person();
    await script(scenario, [
      openai.toolCalls([
        { id: "call_sum", name: "math_evaluate", args: { expression: "40 + 2" } },
        { id: "call_id", name: "uuid_generate", args: {} },
      ]),
      openai.text("The answer is 42."),
    ]);
    const workflow = await newWorkflow(key, {
      steps: [{ id: "think", type: "agent", prompt: "Add 40 and 2 for {{input.who}}", provider: "openai", tools: ["math_*", "uuid_generate"] }],
    });
    const run = await settled(key, await execute(key, workflow.id, { who: "Ada" }));
    expect(run.status).toBe("succeeded");
    const [step] = run.steps;
    expect(step).toMatchObject({ step_id: "think", status: "succeeded", tokens_used: 120 + 180, usage: { input_tokens: 250, output_tokens: 50 } });
    expect(step.result).toMatchObject({
      text: "The answer is 42.",
      steps: 2,
      usage: { input_tokens: 250, output_tokens: 50, model: "fake-gpt" },
      tool_calls: [
        { name: "math_evaluate", arguments: { expression: "40 + 2" }, success: true, result: { result: 42 } },
        { name: "uuid_generate", arguments: {}, success: true },
      ],
    });
    const requests = await modelRequests(scenario);
    expect(requests).toHaveLength(2);
    // The prompt was substituted; only the step's tools were offered.
    expect(requests[0].body.messages.at(-1)).toMatchObject({ role: "user", content: "Add 40 and 2 for Ada" });
    expect(requests[0].body.tools.map((t: any) => t.function.name).sort()).toEqual(["math_evaluate", "uuid_generate"]);
    expect(requests[1].body.messages.filter((m: any) => m.role === "tool").map((m: any) => m.tool_call_id)).toEqual(["call_sum", "call_id"]);
    // Each answer is in the ledger once, under the run's workflow (written with the checkpoint that keeps it).
    const byWorkflow = await json(await call("/v1/usage?group_by=workflow", { token: key }));
    expect(byWorkflow.data).toEqual([expect.objectContaining({ key: String(workflow.id), input_tokens: 250, output_tokens: 50, model_calls: 2 })]);
  });

  it("parks the run for a call a policy asks about, and goes on once a person approves it", async () => {
    const { key, scenario } = await person();
    await call("/v1/me/tool-policies", { token: key, method: "PUT", json: { rules: [{ tool: "math_evaluate", action: "ask" }] } });
    await script(scenario, [openai.toolCalls([{ id: "call_sum", name: "math_evaluate", args: { expression: "6 * 7" } }]), openai.text("It is 42.")]);
    const workflow = await newWorkflow(key, { steps: [{ id: "think", type: "agent", prompt: "Multiply 6 by 7", provider: "openai" }] });
    const id = await execute(key, workflow.id);
    await reaches(id, "waiting");
    const pending = (await json(await call("/v1/approvals?status=pending", { token: key }))).data;
    expect(pending).toEqual([expect.objectContaining({ tool: "math_evaluate", execution_id: id, step_id: "think", tool_call_id: "call_sum" })]);
    expect(await modelRequests(scenario)).toHaveLength(1);
    const parked = await json(await call(`/v1/executions/${id}`, { token: key }));
    expect(parked).toMatchObject({ status: "waiting", waiting_for: { approval_id: pending[0].id } });
    expect(parked.steps[0]).toMatchObject({ type: "agent", status: "waiting", usage: { input_tokens: 100, output_tokens: 20 } });

    expect((await call(`/v1/approvals/${pending[0].id}/decision`, { token: key, json: { decision: "approve" } })).status).toBe(200);
    const run = await settled(key, id);
    expect(run.status).toBe("succeeded");
    expect(run.steps[0].result).toMatchObject({ text: "It is 42.", tool_calls: [{ name: "math_evaluate", success: true, result: { result: 42 } }] });
    expect(await modelRequests(scenario)).toHaveLength(2);
  });

  it("answers structured output that fits output_schema, asking once for a repair", async () => {
    const { key, scenario } = await person();
    await script(scenario, [openai.text("Sure: the score is 7"), openai.text('```json\n{"score": 7}\n```')]);
    const schema = { type: "object", properties: { score: { type: "integer" } }, required: ["score"] };
    const workflow = await newWorkflow(key, {
      steps: [{ id: "rate", type: "agent", prompt: "Rate it", provider: "openai", tools: [], output_schema: schema }],
    });
    const run = await settled(key, await execute(key, workflow.id));
    expect(run.status).toBe("succeeded");
    expect(run.steps[0].result).toMatchObject({ output: { score: 7 } });
    expect((await modelRequests(scenario))[1].body.messages.at(-1).content).toContain("Answer again with only JSON");

    await script(scenario, [openai.text("no"), openai.text("still no")]);
    const failed = await settled(key, await execute(key, workflow.id));
    expect(failed).toMatchObject({ status: "failed" });
    expect(failed.steps[0].error_message).toContain("did not match output_schema after one repair");
  });

  it("refuses a step whose settings are out of bounds when the workflow is saved", async () => {
    const { key } = await person();
    const response = await call("/v1/workflows", {
      token: key,
      json: { workflow_name: "Bad", description: "x", steps: [{ id: "a", type: "agent", prompt: "x", max_steps: 99, budget: { max_tokens_per_tun: 5 } }] },
    });
    expect(response.status).toBe(422);
  });
});
