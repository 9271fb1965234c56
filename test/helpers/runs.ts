import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import worker from "../../src/index";
import { call, json } from "./api";

export async function newWorkflow(key: string, body: Record<string, unknown>) {
  const response = await call("/v1/workflows", { token: key, json: { workflow_name: "Test flow", description: "for tests", ...body } });
  if (response.status !== 201) throw new Error(`create workflow: ${response.status} ${await response.text()}`);
  return json(response);
}

export async function execute(key: string, workflowId: number, input: Record<string, unknown> = {}): Promise<string> {
  const response = await call(`/v1/workflows/${workflowId}/execute`, { token: key, json: { input_data: input } });
  expect(response.status).toBe(202);
  return (await json(response)).execution_id;
}

/**
 * Waits (bounded) for the queue consumer to finish an execution, then returns it through the API
 * with its steps. It watches D1 rather than the API, so waiting spends no request budget.
 */
export async function settled(key: string, executionId: string, timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await env.DB.prepare("SELECT status FROM executions WHERE id = ?").bind(executionId).first<{ status: string }>();
    if (row && ["succeeded", "failed", "cancelled"].includes(row.status)) break;
    if (Date.now() > deadline) throw new Error(`execution ${executionId} still ${row?.status} after ${timeoutMs} ms`);
    await scheduler.wait(50);
  }
  return json(await call(`/v1/executions/${executionId}`, { token: key }));
}

/** Waits (bounded) until the execution reaches `status` in D1. */
export async function reaches(id: string, status: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await env.DB.prepare("SELECT status FROM executions WHERE id = ?").bind(id).first<{ status: string }>();
    if (row?.status === status) return;
    if (Date.now() > deadline) throw new Error(`execution ${id} is ${row?.status}, not ${status}`);
    await scheduler.wait(50);
  }
}

/** Waits (bounded) until one step record of the execution (by its key, `send#3` for an item) is running. */
export async function stepRunning(executionId: string, stepKey: string) {
  for (let i = 0; i < 400; i++) {
    const row = await env.DB.prepare("SELECT status FROM execution_steps WHERE execution_id = ? AND step_key = ?")
      .bind(executionId, stepKey)
      .first<{ status: string }>();
    if (row?.status === "running") return;
    await scheduler.wait(25);
  }
  throw new Error(`step ${stepKey} of ${executionId} never started`);
}

/**
 * The runner of an execution "dies" mid-step: its lease is gone as if it had expired long ago,
 * so nothing it does from here on (its next checkpoint included) counts. Then the every-minute
 * cron runs, as it would, and queues the stale execution again for another runner.
 */
export async function killRunnerAndSweep(executionId: string) {
  const longAgo = Date.now() - 10 * 60_000;
  await env.DB.prepare("UPDATE executions SET lease_token = 'dead-runner', lease_until = ?, updated_at = ? WHERE id = ?")
    .bind(longAgo, longAgo, executionId)
    .run();
  await runCron();
}

/** One tick of the every-minute cron, as Cloudflare would run it. */
export async function runCron() {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: new Date(), cron: "* * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}
