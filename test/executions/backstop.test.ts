import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { BACKSTOP_AFTER_MS } from "../../src/executions/drive";
import { newApiKey, newUser } from "../helpers/api";
import { newWorkflow } from "../helpers/runs";

/**
 * A run started inline is covered by a backstop queue message only once it has run for
 * BACKSTOP_AFTER_MS (src/workflows/run-now.ts): quick runs send none, longer ones send one that
 * arrives after their lease would have run out.
 */
async function runRecordingTheQueue(key: string, workflowId: number) {
  const sent: { body: unknown; options?: QueueSendOptions }[] = [];
  const recording = { ...env, WORKFLOW_RUNS: { send: async (body: unknown, options?: QueueSendOptions) => void sent.push({ body, options }) } };
  const ctx = createExecutionContext();
  const request = new Request(`http://hub.test/v1/workflows/${workflowId}/execute`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", Prefer: "wait=30" },
    body: JSON.stringify({ input_data: {} }),
  });
  const response = await worker.fetch!(request as any, recording as any, ctx);
  await waitOnExecutionContext(ctx);
  return { status: response.status, body: (await response.json()) as { id: string; status: string }, sent };
}

describe("the backstop message of a run started inline", () => {
  it("is not sent for a run that ends at once", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const run = await runRecordingTheQueue(key, workflow.id);
    expect(run).toMatchObject({ status: 200, body: { status: "succeeded" } });
    expect(run.sent).toEqual([]);
  });

  it("is sent once for a run still going after a second, to arrive after its lease", { timeout: 15_000 }, async () => {
    const { key } = await newApiKey(await newUser());
    const seconds = Math.ceil((BACKSTOP_AFTER_MS * 2) / 1000);
    const workflow = await newWorkflow(key, { steps: [{ id: "slow", type: "tool", tool: "wait", arguments: { seconds } }] });
    const run = await runRecordingTheQueue(key, workflow.id);
    expect(run).toMatchObject({ status: 200, body: { status: "succeeded" } });
    expect(run.sent).toEqual([{ body: { kind: "execution", execution_id: run.body.id }, options: { delaySeconds: 21 } }]);
  });
});
