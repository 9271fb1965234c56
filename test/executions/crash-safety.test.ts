import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { newApiKey, newUser } from "../helpers/api";
import { execute, killRunnerAndSweep, newWorkflow, settled, stepRunning } from "../helpers/runs";

/** Each step calls the fake server once; counting its requests counts the step's runs. */
const hit = (scenario: string, step: string) => ({
  id: step,
  type: "tool",
  tool: "http_request",
  arguments: { url: `${env.TEST_FAKE_URL}/s/${scenario}/things/${step}` },
});
const runsOf = async (scenario: string) => {
  const requests: { path: string }[] = await (await fetch(`${env.TEST_FAKE_URL}/__requests/${scenario}`)).json();
  const counts: Record<string, number> = {};
  for (const r of requests) counts[r.path] = (counts[r.path] ?? 0) + 1;
  return counts;
};
const newScenario = () => `wf${crypto.randomUUID().replace(/-/g, "")}`;

describe("crash safety", () => {
  it("resumes an execution whose consumer stopped mid-run, without re-running succeeded steps", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario();
    const workflow = await newWorkflow(key, {
      steps: [hit(scenario, "first"), hit(scenario, "second"), { id: "slow", type: "tool", tool: "wait", arguments: { seconds: 4 } }, hit(scenario, "last")],
    });
    const id = await execute(key, workflow.id);

    // The first runner dies inside the slow step (two steps have succeeded); the sweep hands the run on.
    await stepRunning(id, "slow");
    await killRunnerAndSweep(id);

    const execution = await settled(key, id, 30_000);
    expect(execution.status).toBe("succeeded");
    const runs = await runsOf(scenario);
    expect(runs).toEqual({ "/things/first": 1, "/things/second": 1, "/things/last": 1 });
    // The interrupted step ran again (at least once), counted as a second attempt.
    expect(execution.steps.find((s: any) => s.step_id === "slow")).toMatchObject({ status: "succeeded", attempts: 2 });
  }, 40_000);

  it("never runs a succeeded step twice when the same message is delivered again, even concurrently", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario();
    const workflow = await newWorkflow(key, { steps: [hit(scenario, "a"), hit(scenario, "b"), hit(scenario, "c")] });
    const id = await execute(key, workflow.id);
    // Three more deliveries of the same execution, processed at once beside the queue's own.
    const batch = createMessageBatch(
      "workflow-runs",
      [0, 1, 2].map((n) => ({ id: `dup${n}`, timestamp: new Date(), attempts: 1, body: { kind: "execution", execution_id: id } })),
    );
    const ctx = createExecutionContext();
    await worker.queue(batch as MessageBatch<any>, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["dup0", "dup1", "dup2"]);

    const execution = await settled(key, id);
    expect(execution.status).toBe("succeeded");
    expect(await runsOf(scenario)).toEqual({ "/things/a": 1, "/things/b": 1, "/things/c": 1 });
    // A delivery after the end changes nothing.
    const late = createMessageBatch("workflow-runs", [{ id: "late", timestamp: new Date(), attempts: 1, body: { kind: "execution", execution_id: id } }]);
    await worker.queue(late as MessageBatch<any>, env, createExecutionContext());
    expect(await runsOf(scenario)).toEqual({ "/things/a": 1, "/things/b": 1, "/things/c": 1 });
  });

  it("a message that finds the run in a live runner's hands comes back just after that runner's lease would run out", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "slow", type: "tool", tool: "wait", arguments: { seconds: 3 } }] });
    const id = await execute(key, workflow.id);
    for (let i = 0; i < 200; i++) {
      const row = await env.DB.prepare("SELECT status FROM execution_steps WHERE execution_id = ? AND step_id = 'slow'").bind(id).first<{ status: string }>();
      if (row?.status === "running") break;
      await scheduler.wait(25);
    }
    // The message is handled with a queue that records what is sent back.
    const sent: { body: unknown; options?: QueueSendOptions }[] = [];
    const recording = { ...env, WORKFLOW_RUNS: { send: async (body: unknown, options?: QueueSendOptions) => void sent.push({ body, options }) } };
    const batch = createMessageBatch("workflow-runs", [{ id: "early", timestamp: new Date(), attempts: 1, body: { kind: "execution", execution_id: id } }]);
    const ctx = createExecutionContext();
    await worker.queue(batch as MessageBatch<any>, recording as any, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["early"]);
    expect(sent).toEqual([{ body: { kind: "execution", execution_id: id }, options: { delaySeconds: expect.any(Number) } }]);
    expect(sent[0]!.options!.delaySeconds).toBeGreaterThan(1);
    expect(sent[0]!.options!.delaySeconds).toBeLessThanOrEqual(22);
    expect((await settled(key, id)).status).toBe("succeeded");
  });
});
