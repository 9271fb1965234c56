import { createExecutionContext, createMessageBatch } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { evaluateCondition } from "../../src/lib/conditions";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow, settled } from "../helpers/runs";

describe("conditions and steps, hardened", () => {
  it("evaluates hostile regular expressions in linear time", () => {
    const subject = `${"a".repeat(29)}!`;
    const started = Date.now();
    // Anchored, these take exponential time on a backtracking engine.
    for (const pattern of ["^((a+))+$", "^(a|a)*$", "^(a+)+$", "^(.*a){12}$"]) {
      expect(evaluateCondition({ field: "s", operator: "matches", value: pattern }, { s: subject }).result).toBe(false);
    }
    expect(Date.now() - started).toBeLessThan(1000);
    expect(evaluateCondition({ field: "s", operator: "matches", value: "^a+!$" }, { s: subject }).result).toBe(true);
  });

  it("reports an unknown template variable as not found, like the path form", () => {
    const byTemplate = evaluateCondition({ field: "{{input.missing}}", operator: "is_empty" }, { input: {} });
    const byPath = evaluateCondition({ field: "input.missing", operator: "is_empty" }, { input: {} });
    expect(byTemplate).toEqual(byPath);
    expect(byTemplate).toMatchObject({ result: true, evaluated_value: null });
  });

  it("refuses set steps that would shadow the run context", async () => {
    const { key } = await newApiKey(await newUser());
    const problem = await expectProblem(
      await call("/v1/workflows", { token: key, json: { workflow_name: "x", description: "", steps: [{ id: "s", type: "set", values: { steps: 1 } }] } }),
      422,
      "validation_failed",
    );
    expect(problem.errors![0]!.message).toContain("reserved");
  });

  it("refuses malformed bodies instead of running with defaults", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    await expectProblem(await call(`/v1/workflows/${workflow.id}/execute`, { token: key, json: { input_data: [1, 2] } }), 422, "validation_failed");
    await expectProblem(
      await call(`/v1/workflows/${workflow.id}/execute`, { token: key, body: "{nope", headers: { "Content-Type": "application/json" } }),
      400,
      "malformed_json",
    );
    await expectProblem(await call("/v1/conversations", { token: key, body: "{nope", headers: { "Content-Type": "application/json" } }), 400, "malformed_json");
    expect((await call("/v1/conversations", { token: key, method: "POST" })).status).toBe(201);
    expect((await call(`/v1/workflows/${workflow.id}/execute`, { token: key, method: "POST" })).status).toBe(202);
  });
});

describe("interrupted steps", () => {
  it("fail the execution once a step has killed its consumer too many times", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "flaky", type: "tool", tool: "uuid_generate", arguments: {} }] });
    const me = await json(await call("/v1/me", { token: key }));
    const id = `exe_interrupted_${crypto.randomUUID().slice(0, 8)}`;
    const now = Date.now();
    // An execution whose step was left `running` three times by consumers that died.
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO executions (id, workflow_id, user_id, credential_id, workflow_version, steps, settings, variables, input, status, created_at, updated_at) VALUES (?, ?, ?, 'test', 1, ?, '{}', '{}', '{}', 'running', ?, ?)",
      ).bind(id, workflow.id, me.id, JSON.stringify(workflow.steps), now, now),
      env.DB.prepare(
        "INSERT INTO execution_steps (execution_id, step_key, step_id, type, status, attempts, position, started_at) VALUES (?, 'flaky', 'flaky', 'tool', 'running', 3, 0, ?)",
      ).bind(id, now),
    ]);
    const batch = createMessageBatch("workflow-runs", [{ id: "m", timestamp: new Date(), attempts: 1, body: { kind: "execution", execution_id: id } }]);
    await worker.queue(batch as MessageBatch<any>, env, createExecutionContext());
    const execution = await settled(key, id);
    expect(execution).toMatchObject({ status: "failed", failed_step_id: "flaky", error_message: expect.stringContaining("interrupted too many times") });
  });
});
