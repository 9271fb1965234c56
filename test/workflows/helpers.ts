import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { call, json } from "../helpers/api";

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
