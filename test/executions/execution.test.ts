import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { execute, newWorkflow, settled } from "../helpers/runs";

const leadFlow = [
  { id: "score", type: "set", values: { score: "{{input.score}}", greeting: "Hi {{input.name}}" } },
  { id: "doubled", type: "tool", tool: "math_evaluate", arguments: { expression: "score * 2", variables: { score: "{{score}}" } } },
  {
    id: "hot",
    type: "condition",
    condition: { field: "steps.doubled.result.result", operator: "greater_than", value: 100 },
    then: [
      { id: "tag_hot", type: "tool", tool: "text_template", arguments: { template: "{{greeting}}, you are a hot lead ({{steps.doubled.result.result}})" } },
    ],
    else: [{ id: "tag_cold", type: "tool", tool: "text_template", arguments: { template: "{{greeting}}, thanks for your interest" } }],
  },
];

describe("workflow execution through the queue", () => {
  it("runs set, tool and condition steps, checkpointing each one", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: leadFlow, variables: { score: 1 } });
    expect(workflow).toMatchObject({ version: 1, trigger_type: "manual", status: "active" });

    const id = await execute(key, workflow.id, { score: 60, name: "Ada" });
    const execution = await settled(key, id);
    expect(execution).toMatchObject({ status: "succeeded", workflow_version: 1, input_data: { score: 60, name: "Ada" }, error_message: null });
    expect(execution.steps.map((s: any) => [s.step_id, s.status, s.attempts])).toEqual([
      ["score", "succeeded", 1],
      ["doubled", "succeeded", 1],
      ["hot", "succeeded", 1],
      ["tag_hot", "succeeded", 1],
    ]);
    expect(execution.steps[1].result).toEqual({ result: 120 });
    expect(execution.steps[2].result).toMatchObject({ result: true, evaluated_value: 120, expected_value: 100, branch: "then" });
    expect(execution.steps[3].result.text).toBe("Hi Ada, you are a hot lead (120)");

    const cold = await settled(key, await execute(key, workflow.id, { score: 10, name: "Bob" }));
    expect(cold.steps.map((s: any) => s.step_id)).toEqual(["score", "doubled", "hot", "tag_cold"]);
    expect(cold.steps[3].result.text).toBe("Hi Bob, thanks for your interest");

    const listed = await json(await call(`/v1/workflows/${workflow.id}/executions`, { token: key }));
    expect(listed.data.map((e: any) => e.id)).toEqual([cold.id, id]);
  });

  it("retries a failing step per its policy, then fails the execution with that step's error", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      steps: [
        { id: "ok", type: "tool", tool: "uuid_generate", arguments: {} },
        {
          id: "broken",
          type: "tool",
          tool: "math_evaluate",
          arguments: { expression: "1 / 0" },
          retry: { max_attempts: 3, delay_seconds: 0, backoff: "fixed" },
        },
        { id: "never", type: "tool", tool: "uuid_generate", arguments: {} },
      ],
    });
    const execution = await settled(key, await execute(key, workflow.id));
    expect(execution).toMatchObject({
      status: "failed",
      failed_step_id: "broken",
      error_message: expect.stringContaining('Step "broken" failed after 3 attempt(s)'),
    });
    expect(execution.steps.map((s: any) => [s.step_id, s.status, s.attempts])).toEqual([
      ["ok", "succeeded", 1],
      ["broken", "failed", 3],
    ]);
    const audit = await json(await call("/v1/audit-logs?limit=100", { token: key }));
    expect(audit.data.filter((r: any) => r.tool === "math_evaluate")).toHaveLength(3);
    expect(audit.data.filter((r: any) => r.tool === "uuid_generate")).toHaveLength(1);
  });

  it("uses the workflow's settings.retry when a step has no policy of its own", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      steps: [{ id: "broken", type: "tool", tool: "math_evaluate", arguments: { expression: "nope(" } }],
      settings: { retry: { max_attempts: 2, delay_seconds: 0 } },
    });
    const execution = await settled(key, await execute(key, workflow.id));
    expect(execution.steps[0]).toMatchObject({ status: "failed", attempts: 2 });
  });

  it("holds no worker during a delay: the step waits and the execution resumes later", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      steps: [
        { id: "pause", type: "delay", seconds: 1 },
        { id: "after", type: "set", values: { done: true } },
      ],
    });
    const id = await execute(key, workflow.id);
    const execution = await settled(key, id);
    expect(execution.status).toBe("succeeded");
    expect(execution.steps.map((s: any) => [s.step_id, s.status])).toEqual([
      ["pause", "succeeded"],
      ["after", "succeeded"],
    ]);
    const waited = Date.parse(execution.steps[0].finished_at) - Date.parse(execution.steps[0].started_at);
    expect(waited).toBeGreaterThanOrEqual(900);
  });

  it("bumps the version when steps change, and each execution records the version it ran", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const renamed = await json(await call(`/v1/workflows/${workflow.id}`, { method: "PUT", token: key, json: { name: "Renamed" } }));
    expect(renamed).toMatchObject({ name: "Renamed", version: 1 });
    const changed = await json(
      await call(`/v1/workflows/${workflow.id}`, { method: "PUT", token: key, json: { steps: [{ id: "b", type: "set", values: { x: 2 } }] } }),
    );
    expect(changed.version).toBe(2);
    const execution = await settled(key, await execute(key, workflow.id));
    expect(execution).toMatchObject({ workflow_version: 2, steps: [{ step_id: "b" }] });
  });

  it("refuses invalid steps with errors that name the step and field", async () => {
    const { key } = await newApiKey(await newUser());
    const response = await call("/v1/workflows", {
      token: key,
      json: {
        workflow_name: "Bad",
        description: "",
        steps: [
          { id: "one", type: "tool", tool: "teleport", arguments: {} },
          { id: "one", type: "set", values: {} },
          { id: "two", type: "delay" },
          { id: "three", type: "condition", condition: { field: "x", operator: "matches", value: "(a)\\1" }, then: [] },
        ],
      },
    });
    const problem = await expectProblem(response, 422, "validation_failed");
    const fields = problem.errors!.map((e) => e.field);
    expect(fields).toContain("steps.2.seconds");
    // Shape errors are reported first; a valid shape then gets the cross-step checks.
    const second = await expectProblem(
      await call("/v1/workflows", {
        token: key,
        json: {
          workflow_name: "Bad",
          description: "",
          steps: [
            { id: "one", type: "tool", tool: "teleport", arguments: {} },
            { id: "one", type: "set", values: {} },
            { id: "three", type: "condition", condition: { field: "x", operator: "matches", value: "(a)\\1" }, then: [] },
          ],
        },
      }),
      422,
      "validation_failed",
    );
    expect(second.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: "steps.0.tool", message: expect.stringContaining('no tool named "teleport"') }),
        expect.objectContaining({ field: "steps.1.id", message: expect.stringContaining("used twice") }),
        expect.objectContaining({ field: "steps.2.condition", message: expect.stringContaining("Not a valid RE2") }),
      ]),
    );
  });

  it("keeps workflows and executions private", async () => {
    const owner = await newApiKey(await newUser());
    const stranger = await newApiKey(await newUser());
    const workflow = await newWorkflow(owner.key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const id = await execute(owner.key, workflow.id);
    await expectProblem(await call(`/v1/workflows/${workflow.id}`, { token: stranger.key }), 404, "not_found");
    await expectProblem(await call(`/v1/workflows/${workflow.id}/execute`, { token: stranger.key, json: {} }), 404, "not_found");
    await expectProblem(await call(`/v1/executions/${id}`, { token: stranger.key }), 404, "not_found");
    await expectProblem(await call(`/v1/workflows/${workflow.id}/executions`, { token: stranger.key }), 404, "not_found");
    await settled(owner.key, id);
  });

  it("refuses to run a paused or archived workflow, leaving no execution behind", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    for (const status of ["paused", "archived"]) {
      expect((await call(`/v1/workflows/${workflow.id}`, { method: "PUT", token: key, json: { status } })).status).toBe(200);
      const problem = await expectProblem(await call(`/v1/workflows/${workflow.id}/execute`, { token: key, json: {} }), 409, "conflict");
      expect(problem.detail).toContain(status);
    }
    expect((await json(await call(`/v1/workflows/${workflow.id}/executions`, { token: key }))).data).toEqual([]);
  });
});
