import { createExecutionContext, createMessageBatch } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow, settled } from "../helpers/runs";

describe("agents", () => {
  it("deploys a workflow as an agent, shows the webhook secret once and keeps it encrypted", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { workflow_name: "Lead router", steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const response = await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id, agent_config: { instructions: "be quick" } } });
    expect(response.status).toBe(201);
    const agent = await json(response);
    expect(agent).toMatchObject({
      workflow_id: workflow.id,
      workflow_name: "Lead router",
      status: "active",
      trigger_type: "manual",
      agent_config: { instructions: "be quick" },
      monitoring: { execution_count: 0, success_count: 0, failure_count: 0, success_rate: 0, last_error: null },
    });
    expect(agent.agent_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(agent.webhook_secret).toMatch(/^whsec_/);
    const row = await env.DB.prepare("SELECT webhook_secret FROM agents WHERE id = ?").bind(agent.agent_id).first<{ webhook_secret: string }>();
    expect(row!.webhook_secret).not.toContain(agent.webhook_secret);
    const read = await json(await call(`/v1/agents/${agent.agent_id}`, { token: key }));
    expect(read).not.toHaveProperty("webhook_secret");
    expect((await json(await call("/v1/agents", { token: key }))).map((a: any) => a.agent_id)).toEqual([agent.agent_id]);
  });

  it("runs on demand and counts each finished run exactly once, even when its message is delivered again", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      steps: [
        {
          id: "check",
          type: "condition",
          condition: { field: "input.fail", operator: "equals", value: true },
          then: [{ id: "boom", type: "tool", tool: "math_evaluate", arguments: { expression: "1/0" } }],
          else: [{ id: "fine", type: "tool", tool: "uuid_generate", arguments: {} }],
        },
      ],
    });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    const run = async (input: Record<string, unknown>) => {
      const response = await call(`/v1/agents/${agent.agent_id}/execute`, { token: key, json: input });
      expect(response.status).toBe(202);
      return (await json(response)).execution_id as string;
    };
    const ok = await run({ fail: false });
    const bad = await run({ fail: true });
    expect((await settled(key, ok)).status).toBe("succeeded");
    expect((await settled(key, bad)).status).toBe("failed");
    // Late duplicate deliveries of both finished executions change nothing.
    const duplicates = createMessageBatch(
      "workflow-runs",
      [ok, bad].map((id, n) => ({ id: `again${n}`, timestamp: new Date(), attempts: 1, body: { kind: "execution", execution_id: id } })),
    );
    await worker.queue(duplicates as MessageBatch<any>, env, createExecutionContext());

    const details = await json(await call(`/v1/agents/${agent.agent_id}`, { token: key }));
    expect(details.monitoring).toMatchObject({
      execution_count: 2,
      success_count: 1,
      failure_count: 1,
      success_rate: 50,
      last_error: expect.stringContaining('Step "boom" failed'),
    });
    expect(details.monitoring.last_run_at).not.toBeNull();
    expect(details.performance_metrics.average_duration_ms).toBeGreaterThanOrEqual(0);
    const execution = await json(await call(`/v1/executions/${ok}`, { token: key }));
    expect(execution.agent_id).toBe(agent.agent_id);
  });

  it("pauses (refusing runs), resumes and deletes an agent", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    expect((await json(await call(`/v1/agents/${agent.agent_id}/pause`, { method: "POST", token: key }))).status).toBe("paused");
    await expectProblem(await call(`/v1/agents/${agent.agent_id}/execute`, { token: key, json: {} }), 409, "conflict");
    expect((await json(await call(`/v1/agents/${agent.agent_id}/resume`, { method: "POST", token: key }))).status).toBe("active");
    expect((await call(`/v1/agents/${agent.agent_id}/execute`, { token: key, json: {} })).status).toBe(202);
    expect((await call(`/v1/agents/${agent.agent_id}`, { method: "DELETE", token: key })).status).toBe(204);
    await expectProblem(await call(`/v1/agents/${agent.agent_id}`, { token: key }), 404, "not_found");
    expect((await call(`/v1/workflows/${workflow.id}`, { token: key })).status).toBe(200);
  });

  it("keeps agents private and refuses another user's workflow", async () => {
    const owner = await newApiKey(await newUser());
    const stranger = await newApiKey(await newUser());
    const workflow = await newWorkflow(owner.key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    await expectProblem(await call("/v1/agents/deploy", { token: stranger.key, json: { workflow_id: workflow.id } }), 404, "not_found");
    const agent = await json(await call("/v1/agents/deploy", { token: owner.key, json: { workflow_id: workflow.id } }));
    await expectProblem(await call(`/v1/agents/${agent.agent_id}`, { token: stranger.key }), 404, "not_found");
    await expectProblem(await call(`/v1/agents/${agent.agent_id}/execute`, { token: stranger.key, json: {} }), 404, "not_found");
    expect(await json(await call("/v1/agents", { token: stranger.key }))).toEqual([]);
  });
});

describe("agent performance metrics", () => {
  it("computes duration percentiles, runs per day and tokens from the agent's recent runs", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    const empty = (await json(await call(`/v1/agents/${agent.agent_id}`, { token: key }))).performance_metrics;
    expect(empty).toMatchObject({
      runs_in_window: 0,
      p50_duration_ms: null,
      p95_duration_ms: null,
      runs_per_day: 0,
      tokens_used: 0,
      average_tokens_per_run: null,
    });

    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const started = await json(await call(`/v1/agents/${agent.agent_id}/execute`, { token: key, json: {} }));
      ids.push((await settled(key, started.execution_id)).id);
    }
    // Known durations and tokens (as llm steps would record them); one run is older than a week.
    const now = Date.now();
    const shapes = [
      [100, 10, 1],
      [200, 20, 2],
      [1000, 30, 3],
      [400, 40, 10],
    ];
    for (const [index, [duration, tokens, daysAgo]] of shapes.entries()) {
      const finished = now - daysAgo! * 24 * 3600 * 1000;
      await env.DB.prepare("UPDATE executions SET started_at = ?, finished_at = ?, tokens_used = ? WHERE id = ?")
        .bind(finished - duration!, finished, tokens, ids[index])
        .run();
    }
    const metrics = (await json(await call(`/v1/agents/${agent.agent_id}`, { token: key }))).performance_metrics;
    expect(metrics).toMatchObject({
      window_days: 30,
      runs_in_window: 4,
      p50_duration_ms: 200,
      p95_duration_ms: 1000,
      runs_per_day: 0.43,
      tokens_used: 100,
      average_tokens_per_run: 25,
    });
  });
});

describe("chat agent from a description", () => {
  it("creates the workflow, the agent and a conversation together", async () => {
    const { key } = await newApiKey(await newUser());
    const response = await call("/v1/workflows/chat-agent", { token: key, json: { description: "Generate a uuid for each new lead.", name: "Lead IDs" } });
    expect(response.status).toBe(201);
    const created = await json(response);
    // One agent step: the description is its instructions, the run's input its prompt (DESIGN §6.3).
    expect(created.workflow).toMatchObject({
      name: "Lead IDs",
      steps: [{ id: "agent", type: "agent", prompt: "{{input}}", instructions: "Generate a uuid for each new lead." }],
    });
    expect(created.agent).toMatchObject({ workflow_id: created.workflow.id, workflow_name: "Lead IDs", webhook_secret: expect.stringMatching(/^whsec_/) });
    const conversation = await json(await call(`/v1/conversations/${created.conversation_id}`, { token: key }));
    expect(conversation.title).toBe("Chat with Lead IDs");
  });
});
