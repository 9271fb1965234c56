import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { execute, newWorkflow, reaches, settled } from "../helpers/runs";

const toolCalls = async (workflowId: number) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM audit_logs WHERE source = ?").bind(`workflow:${workflowId}`).first<{ n: number }>())!.n;

describe("POST /v1/executions/{id}/retry", () => {
  it("starts at the step that failed, reusing the succeeded steps' results without running them again", async () => {
    const { key } = await newApiKey(await newUser());
    // The approval timed out (the run failed there); the retry asks for it again.
    const workflow = await newWorkflow(key, {
      steps: [
        { id: "draft", type: "tool", tool: "uuid_generate", arguments: {} },
        { id: "approve", type: "wait_for_event", event: "approved", timeout_seconds: 1 },
        { id: "send", type: "tool", tool: "text_template", arguments: { template: "Draft {{steps.draft.result.uuid}} approved" } },
      ],
    });
    const failed = await settled(key, await execute(key, workflow.id, { list: "spring" }));
    expect(failed).toMatchObject({ status: "failed", failed_step_id: "approve" });
    const draft = failed.steps[0].result.uuid;

    const retried = await call(`/v1/executions/${failed.id}/retry`, { method: "POST", token: key });
    expect(retried.status).toBe(202);
    const started = await json(retried);
    expect(started).toMatchObject({ status: "queued", retry_of: failed.id });
    expect(started.execution_id).not.toBe(failed.id);

    await reaches(started.execution_id, "waiting");
    expect((await call(`/v1/executions/${started.execution_id}/events`, { token: key, json: { event: "approved" } })).status).toBe(202);
    const done = await settled(key, started.execution_id);
    expect(done).toMatchObject({ status: "succeeded", retry_of: failed.id, workflow_version: failed.workflow_version, input_data: { list: "spring" } });
    // The draft's result is the first run's: it was reused, not made again.
    expect(done.steps.map((s: any) => [s.step_id, s.status])).toEqual([
      ["draft", "succeeded"],
      ["approve", "succeeded"],
      ["send", "succeeded"],
    ]);
    expect(done.steps[2].result.text).toBe(`Draft ${draft} approved`);
    expect(await toolCalls(workflow.id)).toBe(2);
    // The first run is left as it was.
    expect((await json(await call(`/v1/executions/${failed.id}`, { token: key }))).status).toBe("failed");
  }, 30_000);

  it("retries a cancelled run, and refuses runs that did not fail, unknown runs and other users' runs", async () => {
    const owner = await newApiKey(await newUser());
    const stranger = await newApiKey(await newUser());
    const workflow = await newWorkflow(owner.key, { steps: [{ id: "hold", type: "wait_for_event", event: "go", timeout_seconds: 3600 }] });
    const waiting = await execute(owner.key, workflow.id);
    await reaches(waiting, "waiting");
    const refused = await expectProblem(await call(`/v1/executions/${waiting}/retry`, { method: "POST", token: owner.key }), 409, "conflict");
    expect(refused.detail).toContain("waiting");
    await call(`/v1/executions/${waiting}/cancel`, { method: "POST", token: owner.key });

    await expectProblem(await call(`/v1/executions/${waiting}/retry`, { method: "POST", token: stranger.key }), 404, "not_found");
    await expectProblem(await call("/v1/executions/exe_missing/retry", { method: "POST", token: owner.key }), 404, "not_found");
    const again = await json(await call(`/v1/executions/${waiting}/retry`, { method: "POST", token: owner.key }));
    await reaches(again.execution_id, "waiting");
    await call(`/v1/executions/${again.execution_id}/cancel`, { method: "POST", token: owner.key });
    // A run is retried once: the next retry is of the retry.
    const twice = await expectProblem(await call(`/v1/executions/${waiting}/retry`, { method: "POST", token: owner.key }), 409, "conflict");
    expect(twice.detail).toContain(again.execution_id);
    // A paused workflow does not run, retries included.
    await call(`/v1/workflows/${workflow.id}`, { method: "PUT", token: owner.key, json: { status: "paused" } });
    const paused = await expectProblem(await call(`/v1/executions/${again.execution_id}/retry`, { method: "POST", token: owner.key }), 409, "conflict");
    expect(paused.detail).toContain("paused");

    const quick = await newWorkflow(owner.key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const succeeded = await settled(owner.key, await execute(owner.key, quick.id));
    await expectProblem(await call(`/v1/executions/${succeeded.id}/retry`, { method: "POST", token: owner.key }), 409, "conflict");
    // Retrying needs workflow:execute.
    const reader = await newApiKey(await newUser(), { scopes: ["data:read"] });
    await expectProblem(await call(`/v1/executions/${succeeded.id}/retry`, { method: "POST", token: reader.key }), 403, "insufficient_scope");
  }, 30_000);
});

describe("POST /v1/workflows/{id}/executions/replay", () => {
  it("runs the failed runs' inputs again on the fixed workflow, once", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      steps: [{ id: "total", type: "tool", tool: "math_evaluate", arguments: { expression: "{{input.expression}}" } }],
    });
    const runs = [];
    for (const expression of ["2 * 3", "2 *", "(("]) runs.push(await settled(key, await execute(key, workflow.id, { expression })));
    expect(runs.map((r) => r.status)).toEqual(["succeeded", "failed", "failed"]);

    // The fix: version 2 no longer evaluates the raw input.
    const fixed = await call(`/v1/workflows/${workflow.id}`, {
      method: "PUT",
      token: key,
      json: { steps: [{ id: "total", type: "tool", tool: "text_template", arguments: { template: "Could not compute {{input.expression}}" } }] },
    });
    expect((await json(fixed)).version).toBe(2);

    const replayed = await call(`/v1/workflows/${workflow.id}/executions/replay`, { token: key, json: { status: "failed" } });
    expect(replayed.status).toBe(202);
    const body = await json(replayed);
    expect(body).toMatchObject({ count: 2, quota_reached: false });
    // Newest first.
    expect(body.data.map((d: any) => d.replay_of)).toEqual([runs[2].id, runs[1].id]);
    const results = await Promise.all(body.data.map((d: any) => settled(key, d.execution_id)));
    expect(results.map((r) => [r.status, r.workflow_version, r.replay_of, r.input_data.expression])).toEqual([
      ["succeeded", 2, runs[2].id, "(("],
      ["succeeded", 2, runs[1].id, "2 *"],
    ]);

    // Asking again replays nothing twice; the filters narrow what is replayed.
    expect(await json(await call(`/v1/workflows/${workflow.id}/executions/replay`, { token: key, json: { status: "failed" } }))).toMatchObject({
      count: 0,
      data: [],
    });
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect((await json(await call(`/v1/workflows/${workflow.id}/executions/replay`, { token: key, json: { status: "succeeded", since: future } }))).count).toBe(
      0,
    );
    const one = await json(await call(`/v1/workflows/${workflow.id}/executions/replay`, { token: key, json: { status: "succeeded", limit: 1 } }));
    expect(one.count).toBe(1);
    await settled(key, one.data[0].execution_id);
  }, 30_000);

  it("validates the filter and keeps workflows private", async () => {
    const owner = await newApiKey(await newUser());
    const stranger = await newApiKey(await newUser());
    const workflow = await newWorkflow(owner.key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const path = `/v1/workflows/${workflow.id}/executions/replay`;
    await expectProblem(await call(path, { token: stranger.key, json: { status: "failed" } }), 404, "not_found");
    for (const body of [
      {},
      { status: "running" },
      { status: "failed", limit: 0 },
      { status: "failed", limit: 101 },
      { status: "failed", since: "yesterday" },
    ]) {
      await expectProblem(await call(path, { token: owner.key, json: body }), 422, "validation_failed");
    }
  });
});
