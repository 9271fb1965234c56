import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { forgetOldExecutionKeys } from "../../src/executions/sweep";
import { createDb } from "../../src/db/client";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow, settled } from "../helpers/runs";

const execute = (key: string, path: string, idempotencyKey: string | undefined, input: Record<string, unknown> = {}, prefer?: string) =>
  call(path, {
    token: key,
    json: path.includes("/agents/") ? input : { input_data: input },
    headers: { ...(idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {}), ...(prefer ? { Prefer: prefer } : {}) },
  });

const runsOf = async (workflowId: number) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM executions WHERE workflow_id = ?").bind(workflowId).first<{ n: number }>())!.n;

describe("Idempotency-Key on execute (DESIGN.md §4)", () => {
  it("starts one run for a key, answers retries with it, and refuses the key for a different request", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: "{{input.n}}" } }] });
    const path = `/v1/workflows/${workflow.id}/execute`;
    const first = await execute(key, path, "order-1001", { n: 1 });
    expect(first.status).toBe(202);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    const { execution_id } = await json(first);

    const again = await execute(key, path, "order-1001", { n: 1 });
    expect(again.status).toBe(202);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect((await json(again)).execution_id).toBe(execution_id);

    // Waiting on a retry answers with the run the key started, once it has ended.
    const waited = await execute(key, path, "order-1001", { n: 1 }, "wait=10");
    expect(waited.status).toBe(200);
    expect(await json(waited)).toMatchObject({ id: execution_id, status: "succeeded" });

    const other = await execute(key, path, "order-1001", { n: 2 });
    const problem = await expectProblem(other, 422, "validation_failed");
    expect(problem.errors).toEqual([expect.objectContaining({ location: "header", field: "Idempotency-Key" })]);
    expect((await json(await execute(key, path, "order-1002", { n: 1 }))).execution_id).not.toBe(execution_id);
    expect(await runsOf(workflow.id)).toBe(2);

    // Another user's identical key is theirs alone.
    const stranger = await newApiKey(await newUser());
    await expectProblem(await execute(stranger.key, path, "order-1001", { n: 1 }), 404, "not_found");
  });

  it("starts exactly one run when the same key arrives many times at once", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const responses = await Promise.all(Array.from({ length: 6 }, () => execute(key, `/v1/workflows/${workflow.id}/execute`, "burst-1")));
    const ids = new Set(await Promise.all(responses.map(async (r) => (await json(r)).execution_id)));
    expect(responses.map((r) => r.status)).toEqual(Array(6).fill(202));
    expect(ids.size).toBe(1);
    expect(await runsOf(workflow.id)).toBe(1);
    await settled(key, [...ids][0]!);
  });

  it("works on agent execute, and a key is forgotten after a day", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    const path = `/v1/agents/${agent.agent_id}/execute`;
    const first = await json(await execute(key, path, "agent-run-7"));
    const again = await execute(key, path, "agent-run-7");
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect((await json(again)).execution_id).toBe(first.execution_id);

    // A day later the key starts a new run (and the cron forgets old keys).
    await env.DB.prepare("UPDATE execution_keys SET created_at = ? WHERE key = 'agent-run-7'")
      .bind(Date.now() - 25 * 3600 * 1000)
      .run();
    const later = await json(await execute(key, path, "agent-run-7"));
    expect(later.execution_id).not.toBe(first.execution_id);
    await env.DB.prepare("UPDATE execution_keys SET created_at = ? WHERE key = 'agent-run-7'")
      .bind(Date.now() - 25 * 3600 * 1000)
      .run();
    await forgetOldExecutionKeys(createDb(env.DB));
    expect(await env.DB.prepare("SELECT count(*) AS n FROM execution_keys WHERE key = 'agent-run-7'").first("n")).toBe(0);
  });

  it("refuses a malformed key", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    for (const bad of ["", "x".repeat(256), "has space"]) {
      const response = await call(`/v1/workflows/${workflow.id}/execute`, { token: key, json: { input_data: {} }, headers: { "Idempotency-Key": bad } });
      await expectProblem(response, 422, "validation_failed");
    }
    expect(await runsOf(workflow.id)).toBe(0);
  });
});
