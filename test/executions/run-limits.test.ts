import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { delegatedContext, runtimeFor } from "../../src/core/context";
import type { HubError } from "../../src/core/errors";
import worker from "../../src/index";
import { findChildRun, startChildRun } from "../../src/executions/child-runs";
import { driveExecution } from "../../src/executions/drive";
import { newLeaseToken } from "../../src/executions/lease";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow, reaches } from "../helpers/runs";

/**
 * What one run may cost in total (DESIGN.md §5 "Security, third round"): the bytes of step results
 * it stores, the runs it sets off at any depth, and the unfinished runs an account holds, waiting
 * ones included. Each limit is set small here through the Worker's settings.
 */

let address = 0;
/** A request through the Worker with these settings, waiting for the work it leaves running (an inline run). */
async function send(settings: Record<string, unknown>, key: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const ctx = createExecutionContext();
  const request = new Request(`http://hub.test${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      Authorization: `Bearer ${key}`,
      "Content-Type": "application/json",
      "CF-Connecting-IP": `203.0.113.${(address++ % 200) + 20}`,
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const response = await worker.fetch(request, { ...env, ...settings } as never, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

const row = (id: string) =>
  env.DB.prepare("SELECT status, error_message, stored_bytes FROM executions WHERE id = ?")
    .bind(id)
    .first<{ status: string; error_message: string | null; stored_bytes: number }>();
const storedResultBytes = async (id: string) =>
  (await env.DB.prepare("SELECT coalesce(sum(length(cast(result AS blob))), 0) AS n FROM execution_steps WHERE execution_id = ?")
    .bind(id)
    .first<{ n: number }>())!.n;

describe("a run's stored step results are bounded in total (MAX_RUN_STORED_BYTES)", () => {
  const tight = { MAX_RUN_STORED_BYTES: String(64 * 1024) };
  const blob = "x".repeat(2000);

  it("fails a for_each whose items would store more than the limit, with the reason; a run under it succeeds", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      steps: [{ id: "each", type: "for_each", items: "{{input.items}}", steps: [{ id: "keep", type: "set", values: { blob: "{{input.blob}}" } }] }],
    });
    const run = async (items: number) =>
      json(
        await send(
          tight,
          key,
          `/v1/workflows/${workflow.id}/execute`,
          { input_data: { items: Array.from({ length: items }, (_, i) => i), blob } },
          { Prefer: "wait=30" },
        ),
      );

    // A small request (2 KB) asking for about 200 KB of results.
    const over = await run(50);
    expect(over.status).toBe("failed");
    expect(over.error_message).toContain("The run stored more than 64 KiB of step results (MAX_RUN_STORED_BYTES)");
    expect(over.failed_step_id).toBe("each");
    const stored = await row(over.id);
    expect(stored!.stored_bytes).toBeLessThanOrEqual(64 * 1024);
    expect(await storedResultBytes(over.id)).toBeLessThanOrEqual(64 * 1024);
    expect(await storedResultBytes(over.id)).toBeLessThanOrEqual(stored!.stored_bytes);

    const under = await run(10);
    expect(under.status).toBe("succeeded");
    expect((await row(under.id))!.stored_bytes).toBeGreaterThan(20 * blob.length);
  });

  it("counts what the run stored before a crash: the total lives with the run, not in the runner", async () => {
    const { key } = await newApiKey(await newUser());
    const big = "y".repeat(40_000);
    const workflow = await newWorkflow(key, {
      steps: [
        { id: "a", type: "set", values: { first: "{{input.big}}" } },
        { id: "pause", type: "delay", seconds: 3600 },
        { id: "b", type: "set", values: { second: "{{input.big}}" } },
      ],
    });
    const started = await json(await send(tight, key, `/v1/workflows/${workflow.id}/execute`, { input_data: { big } }));
    await reaches(started.execution_id, "running");
    const parked = await row(started.execution_id);
    expect(parked!.stored_bytes).toBeGreaterThan(40_000);

    // Another runner takes the run over once the delay is due: it starts from the stored total.
    const past = Date.now() - 1000;
    await env.DB.batch([
      env.DB.prepare("UPDATE execution_steps SET resume_at = ? WHERE execution_id = ? AND step_id = 'pause'").bind(past, started.execution_id),
      env.DB.prepare("UPDATE executions SET lease_until = ? WHERE id = ?").bind(past, started.execution_id),
    ]);
    const outcome = await driveExecution(runtimeFor({ ...env, ...tight } as never), started.execution_id);
    expect(outcome.done).toBe(true);
    const ended = await json(await call(`/v1/executions/${started.execution_id}`, { token: key }));
    expect(ended).toMatchObject({ status: "failed", failed_step_id: "b" });
    expect(ended.error_message).toContain("The run stored more than 64 KiB of step results (MAX_RUN_STORED_BYTES)");
    expect(ended.steps.find((s: { step_id: string }) => s.step_id === "b")).toMatchObject({ status: "failed", result: null });
    expect(await storedResultBytes(started.execution_id)).toBeLessThanOrEqual(64 * 1024);

    // A retry takes the results it reuses with their bytes: it does not start from nothing.
    const retried = await send(tight, key, `/v1/executions/${started.execution_id}/retry`, {});
    expect(retried.status).toBe(202);
    const retry = await json(await call(`/v1/executions/${(await json(retried)).execution_id}`, { token: key }));
    expect(retry).toMatchObject({ status: "failed", failed_step_id: "b" });
    expect(retry.error_message).toContain("(MAX_RUN_STORED_BYTES)");
  });

  it("refuses an event whose payload would take the waiting run past the limit; the run keeps waiting", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      steps: [
        { id: "a", type: "set", values: { first: "{{input.big}}" } },
        { id: "approve", type: "wait_for_event", event: "go", timeout_seconds: 3600 },
      ],
    });
    const started = await json(await send(tight, key, `/v1/workflows/${workflow.id}/execute`, { input_data: { big: "z".repeat(40_000) } }));
    await reaches(started.execution_id, "waiting");
    const events = `/v1/executions/${started.execution_id}/events`;
    const refused = await expectProblem(await send(tight, key, events, { event: "go", payload: { note: "n".repeat(30_000) } }), 422, "limit_exceeded");
    expect(refused.detail).toContain("would take the run past 64 KiB of stored step results (MAX_RUN_STORED_BYTES)");
    expect((await row(started.execution_id))!.status).toBe("waiting");

    expect((await send(tight, key, events, { event: "go", payload: { note: "ok" } })).status).toBe(202);
    await reaches(started.execution_id, "succeeded");
    expect((await row(started.execution_id))!.stored_bytes).toBe(await storedResultBytes(started.execution_id));
  });
});

describe("a run's descendants are bounded in total (MAX_RUN_DESCENDANTS)", () => {
  it("counts child runs at every depth against the run that started the tree, and fails the step past the limit", async () => {
    const { key } = await newApiKey(await newUser());
    const leaf = await newWorkflow(key, { steps: [{ id: "x", type: "set", values: { x: 1 } }] });
    const mid = await newWorkflow(key, {
      steps: [
        { id: "w1", type: "workflow", workflow_id: leaf.id },
        { id: "w2", type: "workflow", workflow_id: leaf.id },
      ],
    });
    const root = await newWorkflow(key, {
      steps: ["m1", "m2", "m3"].map((id) => ({ id, type: "workflow", workflow_id: mid.id })),
    });
    const response = await send({ MAX_RUN_DESCENDANTS: "5" }, key, `/v1/workflows/${root.id}/execute`, { input_data: {} }, { Prefer: "wait=30" });
    const ended = await json(response);
    // m1: mid and two leaves (3); m2: mid and one leaf (5), then its second leaf is refused.
    expect(ended).toMatchObject({ status: "failed", failed_step_id: "m2" });
    expect(ended.error_message).toContain(`The run ${ended.id} has already set off 5 runs (MAX_RUN_DESCENDANTS)`);
    const { n } = (await env.DB.prepare("SELECT count(*) AS n FROM executions WHERE workflow_id IN (?, ?)").bind(leaf.id, mid.id).first<{ n: number }>())!;
    expect(n).toBe(5);
    const counted = await env.DB.prepare("SELECT descendants FROM executions WHERE id = ?").bind(ended.id).first<{ descendants: number }>();
    expect(counted!.descendants).toBe(5);
  });

  it("holds when many children start at the same moment", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    const leaf = await newWorkflow(key, { steps: [{ id: "x", type: "set", values: { x: 1 } }] });
    const parked = await newWorkflow(key, { steps: [{ id: "hold", type: "wait_for_event", event: "go", timeout_seconds: 3600 }] });
    const started = await json(await call(`/v1/workflows/${parked.id}/execute`, { token: key, json: { input_data: {} } }));
    await reaches(started.execution_id, "waiting");

    const runtime = runtimeFor({ ...env, MAX_RUN_DESCENDANTS: "3" } as never);
    const ctx = delegatedContext(runtime, user.id, "test");
    const parent = (await findChildRun(runtime, started.execution_id))!;
    const starts = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => startChildRun(ctx, parent, `exe_race_${i}_${crypto.randomUUID().slice(0, 8)}`, leaf.id, {}, newLeaseToken())),
    );
    expect(starts.filter((s) => s.status === "fulfilled")).toHaveLength(3);
    const refusals = starts.flatMap((s) => (s.status === "rejected" ? [s.reason] : []));
    expect(refusals).toHaveLength(5);
    for (const refusal of refusals) expect(refusal).toMatchObject({ code: "limit_exceeded" } satisfies Partial<HubError>);
    const { n } = (await env.DB.prepare("SELECT count(*) AS n FROM executions WHERE parent_execution_id = ?").bind(parent.id).first<{ n: number }>())!;
    expect(n).toBe(3);
    await call(`/v1/executions/${parent.id}/cancel`, { method: "POST", token: key });
  });

  it("does not start an on_failure run past the limit, and says so on the failed run", async () => {
    const { key } = await newApiKey(await newUser());
    const leaf = await newWorkflow(key, { steps: [{ id: "x", type: "set", values: { x: 1 } }] });
    const handler = await newWorkflow(key, { steps: [{ id: "note", type: "set", values: { seen: true } }] });
    const root = await newWorkflow(key, {
      settings: { on_failure: { workflow_id: handler.id } },
      steps: [
        { id: "w1", type: "workflow", workflow_id: leaf.id },
        { id: "w2", type: "workflow", workflow_id: leaf.id },
        { id: "boom", type: "tool", tool: "math_evaluate", arguments: { expression: "2 *" } },
      ],
    });
    const ended = await json(await send({ MAX_RUN_DESCENDANTS: "2" }, key, `/v1/workflows/${root.id}/execute`, { input_data: {} }, { Prefer: "wait=30" }));
    expect(ended).toMatchObject({ status: "failed", failed_step_id: "boom" });
    expect(ended.error_message).toContain(
      `The on_failure workflow ${handler.id} did not run: The run ${ended.id} has already set off 2 runs (MAX_RUN_DESCENDANTS)`,
    );
    const stored = await json(await call(`/v1/executions/${ended.id}`, { token: key }));
    expect(stored.error_message).toBe(ended.error_message);
    const handled = await env.DB.prepare("SELECT count(*) AS n FROM executions WHERE workflow_id = ?").bind(handler.id).first<{ n: number }>();
    expect(handled!.n).toBe(0);
  });
});

describe("runs parked at wait_for_event count against the unfinished-runs quota", () => {
  it("refuses a fourth start with three runs waiting, from every door, until one ends", async () => {
    const tight = { MAX_RUNNING_EXECUTIONS_PER_USER: "3" };
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "approve", type: "wait_for_event", event: "go", timeout_seconds: 3600 }] });
    const start = () => send(tight, key, `/v1/workflows/${workflow.id}/execute`, { input_data: {} });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await start();
      expect(response.status).toBe(202);
      ids.push((await json(response)).execution_id);
      await reaches(ids[i]!, "waiting");
    }
    await expectProblem(await start(), 409, "quota_exceeded");
    // A caller waiting for the end (its start goes with the run's first write) is refused the same way.
    await expectProblem(await send(tight, key, `/v1/workflows/${workflow.id}/execute`, { input_data: {} }, { Prefer: "wait=1" }), 409, "quota_exceeded");

    // Cancelling one frees its place.
    expect((await call(`/v1/executions/${ids[0]}/cancel`, { method: "POST", token: key })).status).toBe(200);
    const fourth = await start();
    expect(fourth.status).toBe(202);
    await reaches((await json(fourth)).execution_id, "waiting");
    // A retry is a start too.
    await expectProblem(await send(tight, key, `/v1/executions/${ids[0]}/retry`, {}), 409, "quota_exceeded");
    // An event delivered ends a run and frees its place.
    expect((await call(`/v1/executions/${ids[1]}/events`, { token: key, json: { event: "go" } })).status).toBe(202);
    await reaches(ids[1]!, "succeeded");
    expect((await send(tight, key, `/v1/executions/${ids[0]}/retry`, {})).status).toBe(202);

    const { data } = await json(await call(`/v1/workflows/${workflow.id}/executions?limit=100`, { token: key }));
    for (const run of data.filter((r: { status: string }) => r.status === "waiting")) {
      await call(`/v1/executions/${run.id}/cancel`, { method: "POST", token: key });
    }
  });

  it("an on_failure run is a start like any other: past the quota it does not start, and the failed run says why", async () => {
    const tight = { MAX_RUNNING_EXECUTIONS_PER_USER: "2" };
    const { key } = await newApiKey(await newUser());
    const waiter = await newWorkflow(key, { steps: [{ id: "park", type: "wait_for_event", event: "go", timeout_seconds: 3600 }] });
    const handler = await newWorkflow(key, { steps: [{ id: "note", type: "set", values: { seen: true } }] });
    const failing = await newWorkflow(key, {
      settings: { on_failure: { workflow_id: handler.id } },
      steps: [{ id: "boom", type: "tool", tool: "math_evaluate", arguments: { expression: "2 *" } }],
    });
    const handlerRuns = async () =>
      (await env.DB.prepare("SELECT count(*) AS n FROM executions WHERE workflow_id = ?").bind(handler.id).first<{ n: number }>())!.n;

    // With room, the handler runs.
    const roomy = await json(await send(tight, key, `/v1/workflows/${failing.id}/execute`, { input_data: {} }, { Prefer: "wait=30" }));
    expect(roomy.status).toBe("failed");
    expect(roomy.error_message).not.toContain("did not run");
    expect(await handlerRuns()).toBe(1);
    const handled = await env.DB.prepare("SELECT id FROM executions WHERE workflow_id = ?").bind(handler.id).first<{ id: string }>();
    await reaches(handled!.id, "succeeded");

    // One run waiting and the failing one running: 2 of 2 when the handler would start.
    const parked = await json(await send(tight, key, `/v1/workflows/${waiter.id}/execute`, { input_data: {} }));
    await reaches(parked.execution_id, "waiting");
    const full = await json(await send(tight, key, `/v1/workflows/${failing.id}/execute`, { input_data: {} }, { Prefer: "wait=30" }));
    expect(full.status).toBe("failed");
    expect(full.error_message).toContain(
      `The on_failure workflow ${handler.id} did not run: the account had 2 unfinished executions, as many as it may (MAX_RUNNING_EXECUTIONS_PER_USER).`,
    );
    expect(await handlerRuns()).toBe(1);
    await call(`/v1/executions/${parked.execution_id}/cancel`, { method: "POST", token: key });
  });
});

describe("workflows refer only to the caller's own workflows", () => {
  it("refuses settings.on_failure and workflow steps naming a workflow that is not the caller's, on create and update", async () => {
    const { key } = await newApiKey(await newUser());
    const stranger = await newApiKey(await newUser());
    const theirs = await newWorkflow(stranger.key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const mine = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const create = (body: Record<string, unknown>) =>
      call("/v1/workflows", { token: key, json: { workflow_name: "refs", description: "", steps: [], ...body } });
    const expectRefused = async (response: Response, field: string) => {
      const problem = await expectProblem(response, 422, "validation_failed");
      expect(problem.errors).toEqual([expect.objectContaining({ field, message: "No workflow of yours has this id." })]);
    };

    for (const id of [theirs.id, 2_000_000_000]) {
      await expectRefused(await create({ settings: { on_failure: { workflow_id: id } } }), "settings.on_failure.workflow_id");
      await expectRefused(await create({ steps: [{ id: "child", type: "workflow", workflow_id: id }] }), "steps.0.workflow_id");
    }
    await expectRefused(
      await create({
        steps: [
          { id: "a", type: "set", values: { x: 1 } },
          {
            id: "check",
            type: "condition",
            condition: { field: "{{x}}", operator: "equals", value: 1 },
            then: [{ id: "child", type: "workflow", workflow_id: theirs.id }],
          },
        ],
      }),
      "steps.1.then.0.workflow_id",
    );

    const created = await create({ settings: { on_failure: { workflow_id: mine.id } }, steps: [{ id: "child", type: "workflow", workflow_id: mine.id }] });
    expect(created.status).toBe(201);
    const own = await json(created);
    const update = (body: Record<string, unknown>) => call(`/v1/workflows/${own.id}`, { method: "PUT", token: key, json: body });
    await expectRefused(await update({ settings: { on_failure: { workflow_id: theirs.id } } }), "settings.on_failure.workflow_id");
    await expectRefused(await update({ steps: [{ id: "child", type: "workflow", workflow_id: theirs.id }] }), "steps.0.workflow_id");
    // A workflow may run itself as a step (depth bounds it) and be its own error workflow.
    expect((await update({ settings: { on_failure: { workflow_id: own.id } }, steps: [{ id: "again", type: "workflow", workflow_id: own.id }] })).status).toBe(
      200,
    );
  });

  it("an error workflow deleted later: edits of other fields still save, and a failed run says why none ran", async () => {
    const { key } = await newApiKey(await newUser());
    const handler = await newWorkflow(key, { steps: [{ id: "note", type: "set", values: { seen: true } }] });
    const workflow = await newWorkflow(key, {
      settings: { on_failure: { workflow_id: handler.id } },
      steps: [{ id: "boom", type: "tool", tool: "math_evaluate", arguments: { expression: "2 *" } }],
    });
    expect((await call(`/v1/workflows/${handler.id}`, { method: "DELETE", token: key })).status).toBe(204);
    const renamed = await call(`/v1/workflows/${workflow.id}`, { method: "PUT", token: key, json: { name: "renamed", settings: workflow.settings } });
    expect(renamed.status).toBe(200);

    const ended = await json(await call(`/v1/workflows/${workflow.id}/execute`, { token: key, json: { input_data: {} }, headers: { Prefer: "wait=30" } }));
    expect(ended).toMatchObject({ status: "failed", failed_step_id: "boom" });
    expect(ended.error_message).toContain(`The on_failure workflow ${handler.id} did not run: no workflow of yours has this id.`);
    const stored = await json(await call(`/v1/executions/${ended.id}`, { token: key }));
    expect(stored.error_message).toBe(ended.error_message);
  });
});
