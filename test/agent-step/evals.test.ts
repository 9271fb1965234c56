// Evals (DESIGN §6.3): cases run against the agent's model and policies, every tool answered from
// the case's mocks, each case's trajectory and output compared with what it expects.
import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { connectModel, modelRequests, newScenario, openai, script } from "../conversations/helpers";
import { newWorkflow } from "../helpers/runs";

async function agentOf(agentConfig: Record<string, unknown>) {
  const { key } = await newApiKey(await newUser());
  const scenario = newScenario("evals");
  await connectModel(key, scenario);
  const workflow = await newWorkflow(key, { steps: [{ id: "work", type: "agent", prompt: "{{input.task}}" }] });
  const deployed = await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id, agent_config: { provider: "openai", ...agentConfig } } });
  expect(deployed.status).toBe(201);
  return { key, scenario, agentId: (await json(deployed)).agent_id as string };
}

describe("agent evals", () => {
  it("answers tool calls from mocks, and gives each case a verdict with what differed", async () => {
    const { key, scenario, agentId } = await agentOf({ instructions: "You look people up in the CRM." });
    // Cases run a few at once; one case per eval keeps the fake model's script in order.
    const evalOf = async (testCase: Record<string, unknown>) => {
      const response = await call(`/v1/agents/${agentId}/evals`, { token: key, json: { cases: [testCase] } });
      expect(response.status).toBe(201);
      return json(response);
    };
    await script(scenario, [
      openai.toolCalls([{ id: "c1", name: "hubspot_find_contact", args: { email: "ada@example.com" } }]),
      openai.text("Ada works at Analytical Engines."),
    ]);
    const evaluation = await evalOf({
      name: "finds Ada",
      input: "Where does ada@example.com work?",
      mocks: { hubspot_find_contact: { results: [{ company: "Analytical Engines" }] } },
      expect: { tools_called: ["hubspot_find_contact"], output_contains: "Analytical Engines" },
    });
    expect(evaluation).toMatchObject({ id: expect.stringMatching(/^evl_/), agent_id: agentId, passed: 1, failed: 0 });
    expect(evaluation.cases[0]).toEqual({
      name: "finds Ada",
      verdict: "passed",
      failures: [],
      trajectory: [{ tool: "hubspot_find_contact", arguments: { email: "ada@example.com" } }],
      output: "Ada works at Analytical Engines.",
    });
    await script(scenario, [openai.toolCalls([{ id: "c2", name: "math_evaluate", args: { expression: "1 + 1" } }]), openai.text("2")]);
    const second = await evalOf({ input: { task: "add" }, expect: { tools_not_called: ["math_evaluate"], output_schema: { type: "object" } } });
    expect(second).toMatchObject({ passed: 0, failed: 1 });
    expect(second.cases[0]).toMatchObject({ name: "case 1", verdict: "failed" });
    expect(second.cases[0].failures).toEqual([
      "Expected math_evaluate not to be called; it was.",
      'The output does not match output_schema: #: Instance type "number" is invalid. Expected "object".',
    ]);
    // The mock answered, not HubSpot (no connection exists); the model heard the mock.
    const requests = await modelRequests(scenario);
    const heard = requests.flatMap((r: any) => r.body.messages.filter((m: any) => m.role === "tool" && m.tool_call_id === "c1"));
    expect(JSON.parse(heard[0].content)).toEqual({ results: [{ company: "Analytical Engines" }] });
    // The agent's instructions were used.
    expect(requests[0].body.messages[0].content).toContain("You look people up in the CRM.");

    expect(await json(await call(`/v1/agents/${agentId}/evals/${evaluation.id}`, { token: key }))).toEqual(evaluation);
    // Metered as the agent's.
    const usage = await json(await call("/v1/usage?group_by=agent", { token: key }));
    expect(usage.data).toEqual([expect.objectContaining({ key: agentId, model_calls: 4 })]);
  });

  it("applies the agent's policies: a denied call is not answered from the mocks, an asked one stores no approval", async () => {
    const { key, scenario, agentId } = await agentOf({
      tool_policies: [
        { tool: "math_evaluate", action: "deny" },
        { tool: "uuid_generate", action: "ask" },
      ],
    });
    await script(scenario, [
      openai.toolCalls([
        { id: "m", name: "math_evaluate", args: { expression: "1" } },
        { id: "u", name: "uuid_generate", args: {} },
      ]),
      openai.text("Could not."),
    ]);
    const evaluation = await json(
      await call(`/v1/agents/${agentId}/evals`, {
        token: key,
        json: { cases: [{ input: "go", mocks: { math_evaluate: 1 }, expect: { tools_called: ["math_evaluate"] } }] },
      }),
    );
    expect(evaluation.cases[0]).toMatchObject({ verdict: "passed", trajectory: [{ tool: "math_evaluate" }, { tool: "uuid_generate" }] });
    const results = (await modelRequests(scenario))[1].body.messages.filter((m: any) => m.role === "tool").map((m: any) => m.content);
    expect(results[0]).toContain("Refused by policy");
    expect(results[1]).toContain("in an eval it is not run");
    expect((await json(await call("/v1/approvals", { token: key }))).data).toEqual([]);
  });

  it("keeps evals to the agent's owner and bounds the cases", async () => {
    const { key, agentId } = await agentOf({});
    const stranger = (await newApiKey(await newUser())).key;
    await expectProblem(await call(`/v1/agents/${agentId}/evals`, { token: stranger, json: { cases: [{ input: "x" }] } }), 404, "not_found");
    await expectProblem(await call(`/v1/agents/${agentId}/evals/evl_nothing`, { token: key }), 404, "not_found");
    const many = Array.from({ length: 51 }, () => ({ input: "x" }));
    await expectProblem(await call(`/v1/agents/${agentId}/evals`, { token: key, json: { cases: many } }), 422, "validation_failed");
  });
});
