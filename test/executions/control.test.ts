import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { execute, newWorkflow, runCron, settled } from "../helpers/runs";

const stepStatus = (executionId: string, stepId: string) =>
  env.DB.prepare("SELECT status FROM execution_steps WHERE execution_id = ? AND step_id = ?").bind(executionId, stepId).first<{ status: string }>();

async function until(check: () => Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await scheduler.wait(25);
  }
}

describe("cancelling executions", () => {
  it("cancels a run waiting on a delay: nothing after the delay runs, and a second cancel is a conflict", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      steps: [
        { id: "before", type: "set", values: { x: 1 } },
        { id: "pause", type: "delay", seconds: 1 },
        { id: "after", type: "tool", tool: "uuid_generate", arguments: {} },
      ],
    });
    const id = await execute(key, workflow.id);
    await until(async () => (await stepStatus(id, "pause"))?.status === "waiting");

    const stranger = await newApiKey(await newUser());
    await expectProblem(await call(`/v1/executions/${id}/cancel`, { method: "POST", token: stranger.key }), 404, "not_found");

    const response = await call(`/v1/executions/${id}/cancel`, { method: "POST", token: key });
    expect(response.status).toBe(200);
    const cancelled = await json(response);
    expect(cancelled).toMatchObject({ id, status: "cancelled", error_message: "Cancelled on request." });
    expect(cancelled.finished_at).not.toBeNull();

    // The delay's wake-up arrives and finds the run over.
    await scheduler.wait(2500);
    const after = await json(await call(`/v1/executions/${id}`, { token: key }));
    expect(after.status).toBe("cancelled");
    expect(after.steps.map((s: any) => s.step_id)).toEqual(["before", "pause"]);

    const again = await expectProblem(await call(`/v1/executions/${id}/cancel`, { method: "POST", token: key }), 409, "conflict");
    expect(again.detail).toContain("cancelled");
  });

  it("aborts a step in progress and runs nothing after it", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      steps: [
        { id: "slow", type: "tool", tool: "wait", arguments: { seconds: 20 } },
        { id: "after", type: "tool", tool: "uuid_generate", arguments: {} },
      ],
    });
    const id = await execute(key, workflow.id);
    await until(async () => (await stepStatus(id, "slow"))?.status === "running");
    const started = Date.now();
    expect((await call(`/v1/executions/${id}/cancel`, { method: "POST", token: key })).status).toBe(200);

    // The runner's heartbeat notices within seconds and aborts the wait: the worker is freed
    // long before the 20 s the step asked for.
    await until(async () => {
      const audit = await env.DB.prepare("SELECT outcome FROM audit_logs WHERE tool = 'wait' AND source = ? ")
        .bind(`workflow:${workflow.id}`)
        .first<{ outcome: string }>();
      return audit?.outcome === "error";
    }, 15_000);
    expect(Date.now() - started).toBeLessThan(15_000);
    const execution = await settled(key, id);
    expect(execution.status).toBe("cancelled");
    expect(execution.steps.map((s: any) => s.step_id)).toEqual(["slow"]);
  }, 30_000);

  it("refuses to cancel a finished execution", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const execution = await settled(key, await execute(key, workflow.id));
    expect(execution.status).toBe("succeeded");
    const problem = await expectProblem(await call(`/v1/executions/${execution.id}/cancel`, { method: "POST", token: key }), 409, "conflict");
    expect(problem.detail).toContain("succeeded");
  });
});

describe("every execution ends", () => {
  it("fails a set step whose values grow too large, with a clear message", async () => {
    const { key } = await newApiKey(await newUser());
    const big = "x".repeat(100_000);
    const workflow = await newWorkflow(key, { steps: [{ id: "grow", type: "set", values: { huge: "{{input.big}}{{input.big}}{{input.big}}" } }] });
    const execution = await settled(key, await execute(key, workflow.id, { big }));
    expect(execution).toMatchObject({ status: "failed", failed_step_id: "grow" });
    expect(execution.error_message).toMatch(/Step "grow" failed after 1 attempt\(s\): .*larger than/);
    expect(execution.steps).toEqual([expect.objectContaining({ step_id: "grow", status: "failed" })]);
  });

  it("fails a tool step whose arguments cannot be substituted, before calling the tool", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      steps: [{ id: "render", type: "tool", tool: "text_template", arguments: { template: "{{input.big}}".repeat(12) } }],
    });
    const execution = await settled(key, await execute(key, workflow.id, { big: "y".repeat(100_000) }));
    expect(execution).toMatchObject({
      status: "failed",
      failed_step_id: "render",
      error_message: 'Step "render" failed after 1 attempt(s): The substituted value is larger than 1024 KiB.',
    });
    const calls = await env.DB.prepare("SELECT COUNT(*) AS n FROM audit_logs WHERE source = ?").bind(`workflow:${workflow.id}`).first<{ n: number }>();
    expect(calls!.n).toBe(0);
  });

  it("the sweep queues again a run whose queue message was lost", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "tool", tool: "uuid_generate", arguments: {} }] });
    // A run accepted just before the process died: its row exists, its message is gone.
    const id = `exe_lost${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;
    const old = Date.now() - 30_000;
    const user = await json(await call("/v1/me", { token: key }));
    await env.DB.prepare(
      "INSERT INTO executions (id, workflow_id, user_id, credential_id, workflow_version, steps, settings, variables, input, status, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, '{}', '{}', '{}', 'queued', ?, ?)",
    )
      .bind(id, workflow.id, user.id, "key_0", JSON.stringify(workflow.steps), old, old)
      .run();
    // Its credential must be live for the tool step: use the key that made the workflow.
    const keyRow = await env.DB.prepare("SELECT id FROM api_keys WHERE user_id = ? ORDER BY id DESC LIMIT 1").bind(user.id).first<{ id: number }>();
    await env.DB.prepare("UPDATE executions SET credential_id = ? WHERE id = ?").bind(`key_${keyRow!.id}`, id).run();

    await runCron();
    const execution = await settled(key, id);
    expect(execution.status).toBe("succeeded");
  });
});

describe("rules every door keeps", () => {
  it("long-running work needs workflow:execute as well as data:write", async () => {
    const user = await newUser();
    const { key: full } = await newApiKey(user);
    const { key: writer } = await newApiKey(user, { scopes: ["data:read", "data:write"] });
    const workflow = await newWorkflow(full, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    await expectProblem(await call("/v1/agents/deploy", { token: writer, json: { workflow_id: workflow.id } }), 403, "insufficient_scope");
    await expectProblem(await call("/v1/workflows/chat-agent", { token: writer, json: { description: "Generate a UUID" } }), 403, "insufficient_scope");
    const agent = await json(await call("/v1/agents/deploy", { token: full, json: { workflow_id: workflow.id } }));
    await expectProblem(
      await call("/v1/agents/schedule", { token: writer, json: { agent_id: agent.agent_id, schedule_config: { type: "interval", interval_seconds: 60 } } }),
      403,
      "insufficient_scope",
    );
    await expectProblem(await call(`/v1/agents/${agent.agent_id}/resume`, { method: "POST", token: writer }), 403, "insufficient_scope");
    // Pausing only stops work, so data:write is enough.
    expect((await call(`/v1/agents/${agent.agent_id}/pause`, { method: "POST", token: writer })).status).toBe(200);
  });

  it("an agent's manual run takes an optional JSON object as its input, and refuses anything else", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    const bare = await call(`/v1/agents/${agent.agent_id}/execute`, { method: "POST", token: key });
    expect(bare.status).toBe(202);
    expect((await settled(key, (await json(bare)).execution_id)).input_data).toEqual({});
    const withInput = await call(`/v1/agents/${agent.agent_id}/execute`, { token: key, json: { lead: "ada@example.com" } });
    expect((await settled(key, (await json(withInput)).execution_id)).input_data).toEqual({ lead: "ada@example.com" });
    await expectProblem(await call(`/v1/agents/${agent.agent_id}/execute`, { token: key, json: ["not", "an", "object"] }), 422, "validation_failed");
    await expectProblem(
      await call(`/v1/agents/${agent.agent_id}/execute`, { token: key, body: "{broken", headers: { "Content-Type": "application/json" } }),
      400,
      "malformed_json",
    );
  });

  it("agents do not run a paused workflow, by hand or on schedule", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    expect((await call(`/v1/workflows/${workflow.id}`, { method: "PUT", token: key, json: { status: "paused" } })).status).toBe(200);
    await expectProblem(await call(`/v1/agents/${agent.agent_id}/execute`, { token: key, json: {} }), 409, "conflict");

    await call("/v1/agents/schedule", { token: key, json: { agent_id: agent.agent_id, schedule_config: { type: "interval", interval_seconds: 1 } } });
    await until(async () => {
      const details = await json(await call(`/v1/agents/${agent.agent_id}`, { token: key }));
      return /did not start: The workflow is paused/.test(details.monitoring.last_error ?? "");
    });
    const runs = await env.DB.prepare("SELECT COUNT(*) AS n FROM executions WHERE agent_id = ?").bind(agent.agent_id).first<{ n: number }>();
    expect(runs!.n).toBe(0);
    await call(`/v1/agents/${agent.agent_id}/schedule`, { method: "DELETE", token: key });
  });

  it("quotas: agents, workflows and unfinished executions per user, and the interval floor", async () => {
    const tight = { ...env, MAX_AGENTS_PER_USER: "1", MAX_WORKFLOWS_PER_USER: "2", MAX_RUNNING_EXECUTIONS_PER_USER: "1", MIN_INTERVAL_SECONDS: "30" };
    const { key } = await newApiKey(await newUser());
    const send = async (path: string, body: unknown) => {
      const ctx = createExecutionContext();
      const request = new Request(`http://hub.test${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "CF-Connecting-IP": "198.51.100.77" },
        body: JSON.stringify(body),
      });
      const response = await worker.fetch(request, tight as any, ctx);
      await waitOnExecutionContext(ctx);
      return response;
    };
    const steps = [
      { id: "hold", type: "delay", seconds: 30 },
      { id: "a", type: "set", values: { x: 1 } },
    ];
    const first = await json(await send("/v1/workflows", { workflow_name: "one", description: "", steps }));
    expect((await send("/v1/workflows", { workflow_name: "two", description: "", steps })).status).toBe(201);
    const third = await expectProblem(await send("/v1/workflows", { workflow_name: "three", description: "", steps }), 409, "quota_exceeded");
    expect(third.detail).toContain("at most 2 workflows");

    const agent = await json(await send("/v1/agents/deploy", { workflow_id: first.id }));
    await expectProblem(await send("/v1/agents/deploy", { workflow_id: first.id }), 409, "quota_exceeded");

    const floor = await expectProblem(
      await send("/v1/agents/schedule", { agent_id: agent.agent_id, schedule_config: { type: "interval", interval_seconds: 10 } }),
      422,
      "validation_failed",
    );
    expect(floor.errors).toEqual([
      expect.objectContaining({ field: "schedule_config.interval_seconds", message: expect.stringContaining("at least 30 seconds") }),
    ]);

    const running = await send(`/v1/workflows/${first.id}/execute`, { input_data: {} });
    expect(running.status).toBe(202);
    await expectProblem(await send(`/v1/workflows/${first.id}/execute`, { input_data: {} }), 409, "quota_exceeded");
    // Cancelling frees the slot.
    await call(`/v1/executions/${(await json(running)).execution_id}/cancel`, { method: "POST", token: key });
    expect((await send(`/v1/workflows/${first.id}/execute`, { input_data: {} })).status).toBe(202);
  });

  it("the unfinished-executions quota holds when many runs start at the same moment", async () => {
    const tight = { ...env, MAX_RUNNING_EXECUTIONS_PER_USER: "3" };
    const { key } = await newApiKey(await newUser());
    const execute = async (workflowId: number) => {
      const ctx = createExecutionContext();
      const request = new Request(`http://hub.test/v1/workflows/${workflowId}/execute`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "CF-Connecting-IP": "198.51.100.78" },
        body: JSON.stringify({ input_data: {} }),
      });
      const response = await worker.fetch(request, tight as any, ctx);
      await waitOnExecutionContext(ctx);
      return response.status;
    };
    const workflow = await json(
      await call("/v1/workflows", { token: key, json: { workflow_name: "held", description: "", steps: [{ id: "hold", type: "delay", seconds: 60 }] } }),
    );
    const statuses = await Promise.all(Array.from({ length: 8 }, () => execute(workflow.id)));
    expect(statuses.filter((s) => s === 202)).toHaveLength(3);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
    const { data } = await json(await call(`/v1/workflows/${workflow.id}/executions`, { token: key }));
    expect(data).toHaveLength(3);
    for (const e of data) await call(`/v1/executions/${e.id}/cancel`, { method: "POST", token: key });
  });
});
