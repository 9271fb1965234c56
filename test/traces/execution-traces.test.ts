// The trace of a run (DESIGN §6.3 Traces), built from its step records: a root `invoke_workflow`
// span and a span per step record, named by what the step did; a failed step says so; the same
// at every read; another user's run is 404.
import { describe, expect, it } from "vitest";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow } from "../helpers/runs";
import { connectModel, newScenario, openai, script } from "../conversations/helpers";

const run = async (key: string, workflowId: number, input: Record<string, unknown> = {}) => {
  const response = await call(`/v1/workflows/${workflowId}/execute`, { token: key, json: { input_data: input }, headers: { Prefer: "wait=30" } });
  expect(response.status).toBe(200);
  return json(response);
};

const traceOf = (key: string, id: string) => call(`/v1/executions/${id}/trace`, { token: key });

describe("a run's trace", () => {
  it("has a root invoke_workflow span and a span per step record: execute_tool for tools, chat for llm steps", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("runtrace");
    await connectModel(key, scenario);
    await script(scenario, [openai.text("Welcome aboard, Ada.", { prompt_tokens: 40, completion_tokens: 12 })]);
    const workflow = await newWorkflow(key, {
      workflow_name: "Score and greet",
      steps: [
        { id: "doubled", type: "tool", tool: "math_evaluate", arguments: { expression: "{{input.score}} * 2" } },
        { id: "label", type: "set", values: { tier: "gold" } },
        {
          id: "hot",
          type: "condition",
          condition: { field: "steps.doubled.result.result", operator: "greater_than", value: 100 },
          then: [{ id: "note", type: "tool", tool: "text_template", arguments: { template: "Hot lead: {{input.name}}" } }],
          else: [],
        },
        { id: "greet", type: "llm", provider: "openai", prompt: "Greet {{input.name}}." },
      ],
    });
    const execution = await run(key, workflow.id, { score: 60, name: "Ada Secret" });
    expect(execution.status).toBe("succeeded");

    const response = await traceOf(key, execution.id);
    expect(response.status).toBe(200);
    const trace = await json(response);
    expect(trace.trace_id).toMatch(/^[0-9a-f]{32}$/);
    const [root, ...children] = trace.spans;
    expect(root).toMatchObject({
      name: "invoke_workflow Score and greet",
      parent_span_id: null,
      status: "ok",
      attributes: {
        "gen_ai.operation.name": "invoke_workflow",
        "gen_ai.workflow.name": "Score and greet",
        "hub.execution.id": execution.id,
        "gen_ai.usage.input_tokens": 40,
        "gen_ai.usage.output_tokens": 12,
      },
    });
    // One span per step record, in the order they ran.
    expect(children.map((s: any) => [s.name, s.status, s.attributes["hub.step.id"]])).toEqual(
      execution.steps.map((step: any) => [expect.any(String), "ok", step.step_id]),
    );
    expect(children.map((s: any) => s.name)).toEqual([
      "execute_tool math_evaluate",
      "set label",
      "condition hot",
      "execute_tool text_template",
      "chat fake-gpt",
    ]);
    const [doubled, , , note, greet] = children;
    expect(doubled.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "math_evaluate",
      "gen_ai.tool.call.id": `${execution.id}:doubled`,
    });
    expect(note.attributes["gen_ai.tool.name"]).toBe("text_template");
    expect(greet).toMatchObject({
      kind: "client",
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.response.model": "fake-gpt",
        "gen_ai.usage.input_tokens": 40,
        "gen_ai.usage.output_tokens": 12,
      },
    });
    for (const span of children) {
      expect(span.span_id).toMatch(/^[0-9a-f]{16}$/);
      expect(span.parent_span_id).toBe(root.span_id);
      expect(Date.parse(span.start_time)).toBeGreaterThanOrEqual(Date.parse(root.start_time));
      expect(Date.parse(span.end_time)).toBeLessThanOrEqual(Date.parse(root.end_time));
    }
    // Nothing of the input or the results.
    expect(JSON.stringify(trace)).not.toContain("Ada Secret");
    expect(JSON.stringify(trace)).not.toContain("Welcome aboard");
    // Built on read, the same every time.
    expect(await json(await traceOf(key, execution.id))).toEqual(trace);
  });

  it("lists an agent step's model requests and tool calls under its span, without counting its tokens twice", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("agenttrace");
    await connectModel(key, scenario);
    await script(scenario, [
      openai.toolCalls([{ id: "call_sum", name: "math_evaluate", args: { expression: "40 + 2" } }], { prompt_tokens: 30, completion_tokens: 5 }),
      openai.text("It is 42.", { prompt_tokens: 50, completion_tokens: 7 }),
    ]);
    const workflow = await newWorkflow(key, {
      workflow_name: "Think",
      steps: [{ id: "think", type: "agent", prompt: "Add 40 and 2.", provider: "openai", tools: ["math_evaluate"] }],
    });
    const execution = await run(key, workflow.id);
    expect(execution.status).toBe("succeeded");
    // The step's result says when each request and call ran, and how long it took.
    expect(execution.steps[0].result.model_requests).toEqual([
      { model: "fake-gpt", started_at: expect.any(String), duration_ms: expect.any(Number), input_tokens: 30, output_tokens: 5 },
      { model: "fake-gpt", started_at: expect.any(String), duration_ms: expect.any(Number), input_tokens: 50, output_tokens: 7 },
    ]);
    expect(execution.steps[0].result.tool_calls[0]).toMatchObject({ name: "math_evaluate", started_at: expect.any(String), duration_ms: expect.any(Number) });

    const trace = await json(await traceOf(key, execution.id));
    const [root, agent, ...inside] = trace.spans;
    expect(root.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 80, "gen_ai.usage.output_tokens": 12 });
    expect(agent).toMatchObject({ name: "invoke_agent think", parent_span_id: root.span_id });
    expect(inside.map((s: any) => [s.name, s.kind, s.parent_span_id, s.attributes["gen_ai.usage.input_tokens"] ?? null])).toEqual([
      ["chat fake-gpt", "client", agent.span_id, 30],
      ["execute_tool math_evaluate", "internal", agent.span_id, null],
      ["chat fake-gpt", "client", agent.span_id, 50],
    ]);
    // The call's id is its idempotency key, as the tool saw it.
    expect(inside[1].attributes).toMatchObject({ "gen_ai.tool.name": "math_evaluate", "gen_ai.tool.call.id": `${execution.id}:think:1` });
    // In time order, each within the step's span.
    const at = (s: any) => Date.parse(s.start_time);
    expect(inside.every((s: any) => at(s) >= at(agent) && Date.parse(s.end_time) <= Date.parse(agent.end_time))).toBe(true);
    expect(at(inside[0]) <= at(inside[1]) && at(inside[1]) <= at(inside[2])).toBe(true);
  });

  it("says which step failed and why, by its error type", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      steps: [
        { id: "ok", type: "tool", tool: "math_evaluate", arguments: { expression: "2 + 2" } },
        { id: "bad", type: "tool", tool: "math_evaluate", arguments: { expression: "2 +" } },
      ],
    });
    const execution = await run(key, workflow.id);
    expect(execution.status).toBe("failed");
    const trace = await json(await traceOf(key, execution.id));
    expect(trace.spans[0]).toMatchObject({ status: "error", attributes: { "error.type": "step_failed", "hub.execution.status": "failed" } });
    expect(trace.spans.slice(1).map((s: any) => [s.name, s.status, s.attributes["error.type"] ?? null])).toEqual([
      ["execute_tool math_evaluate", "ok", null],
      ["execute_tool math_evaluate", "error", "step_failed"],
    ]);
  });

  it("is another user's: 404", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "one", type: "set", values: { a: 1 } }] });
    const execution = await run(key, workflow.id);
    expect((await traceOf(key, execution.id)).status).toBe(200);
    const { key: other } = await newApiKey(await newUser());
    const refused = await traceOf(other, execution.id);
    expect(refused.status).toBe(404);
    expect(await refused.text()).not.toContain("invoke_workflow");
    expect((await traceOf(key, "exe_unknown")).status).toBe(404);
  });
});
