import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";

/**
 * A run the caller waits for (`Prefer: wait`) is built from this isolate's copy of the workflow
 * and its row is written with its first write (src/workflows/deferred-start.ts). The copy may be
 * stale (another isolate changed the workflow): the run must still be the workflow as stored, may
 * run only if the workflow may, and count against the quota like any other.
 */
const waitFor = (key: string, workflowId: number) =>
  call(`/v1/workflows/${workflowId}/execute`, { token: key, json: { input_data: {} }, headers: { Prefer: "wait=10" } });

async function setup(steps: unknown[] = [{ id: "a", type: "set", values: { x: 1 } }]) {
  const user = await newUser();
  const { key } = await newApiKey(user);
  const created = await call("/v1/workflows", { token: key, json: { workflow_name: "Deferred", description: "test", steps } });
  expect(created.status).toBe(201);
  const workflow = await json(created);
  // The first waited run leaves this isolate holding a copy of the workflow.
  const first = await waitFor(key, workflow.id);
  expect(first.status).toBe(200);
  return { key, workflow, userId: user.id };
}

const executionsOf = async (key: string, workflowId: number) =>
  (await json(await call(`/v1/workflows/${workflowId}/executions?limit=100`, { token: key }))).data as { id: string; status: string }[];

describe("a waited run started with its first write", () => {
  it("is stored with every step once it answers", async () => {
    const { key, workflow } = await setup([
      { id: "a", type: "set", values: { x: 1 } },
      { id: "check", type: "condition", condition: { field: "{{x}}", operator: "equals", value: 1 }, then: [{ id: "yes", type: "set", values: { ok: true } }] },
    ]);
    const answered = await json(await waitFor(key, workflow.id));
    expect(answered.status).toBe("succeeded");
    const stored = await json(await call(`/v1/executions/${answered.id}`, { token: key }));
    expect(stored).toMatchObject({ status: "succeeded", workflow_version: workflow.version });
    expect(stored.steps.map((s: { step_id: string; status: string }) => [s.step_id, s.status])).toEqual([
      ["a", "succeeded"],
      ["check", "succeeded"],
      ["yes", "succeeded"],
    ]);
  });

  it("runs the workflow as stored when another isolate changed it", async () => {
    const { key, workflow } = await setup();
    await env.DB.prepare("UPDATE workflows SET steps = ?, version = version + 1, updated_at = ? WHERE id = ?")
      .bind(JSON.stringify([{ id: "b", type: "set", values: { y: 2 } }]), Date.now() + 1, workflow.id)
      .run();
    const answered = await json(await waitFor(key, workflow.id));
    expect(answered).toMatchObject({ status: "succeeded", workflow_version: workflow.version + 1 });
    expect(answered.steps.map((s: { step_id: string }) => s.step_id)).toEqual(["b"]);
  });

  it("does not run a workflow another isolate paused or deleted, and leaves no run behind", async () => {
    const paused = await setup();
    await env.DB.prepare("UPDATE workflows SET status = 'paused' WHERE id = ?").bind(paused.workflow.id).run();
    await expectProblem(await waitFor(paused.key, paused.workflow.id), 409, "conflict");
    expect(await executionsOf(paused.key, paused.workflow.id)).toHaveLength(1);

    const deleted = await setup();
    await env.DB.prepare("DELETE FROM workflows WHERE id = ?").bind(deleted.workflow.id).run();
    await expectProblem(await waitFor(deleted.key, deleted.workflow.id), 404, "not_found");
  });

  it("counts against the quota of unfinished runs and leaves nothing behind when refused", async () => {
    const { key, workflow, userId } = await setup();
    // Fill the account's quota with unfinished runs of its workflow, as other requests would.
    const limit = Number(env.MAX_RUNNING_EXECUTIONS_PER_USER);
    const statements = Array.from({ length: limit }, (_, i) =>
      env.DB.prepare(
        "INSERT INTO executions (id, workflow_id, user_id, credential_id, workflow_version, steps, settings, variables, input, status) VALUES (?, ?, ?, 'test', 1, '[]', '{}', '{}', '{}', 'queued')",
      ).bind(`exe_quota_${crypto.randomUUID()}_${i}`, workflow.id, userId),
    );
    await env.DB.batch(statements);
    await expectProblem(await waitFor(key, workflow.id), 409, "quota_exceeded");
    const runs = await env.DB.prepare("SELECT status, count(*) AS n FROM executions WHERE workflow_id = ? GROUP BY status ORDER BY status")
      .bind(workflow.id)
      .all<{ status: string; n: number }>();
    expect(runs.results).toEqual([
      { status: "queued", n: limit },
      { status: "succeeded", n: 1 },
    ]);
  });

  it("answers 202 with a run that exists when the wait runs out first", { timeout: 15_000 }, async () => {
    const { key, workflow } = await setup([
      { id: "a", type: "set", values: { x: 1 } },
      { id: "pause", type: "delay", seconds: 2 },
    ]);
    const response = await call(`/v1/workflows/${workflow.id}/execute`, { token: key, json: { input_data: {} }, headers: { Prefer: "wait=1" } });
    expect(response.status).toBe(202);
    const { execution_id } = await json(response);
    expect((await call(`/v1/executions/${execution_id}`, { token: key })).status).toBe(200);
  });
});
