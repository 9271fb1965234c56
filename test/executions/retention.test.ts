import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runtimeFor } from "../../src/core/context";
import { RETENTION_ROWS_PER_SWEEP, RETENTION_RUNS_PER_SWEEP, sweepExpiredRuns } from "../../src/executions/retention";
import { call, expectProblem, newApiKey, newUser } from "../helpers/api";
import { execute, newWorkflow, settled } from "../helpers/runs";
import { runExists, runId, seedRuns, seedSteps, stepCount } from "./run-rows";

const DAY = 86_400_000;
const sweep = () => sweepExpiredRuns(runtimeFor(env));
const setStep = [{ id: "a", type: "set", values: { x: 1 } }];

/** Sweeps until nothing more goes (each sweep is bounded), answering how many went in each. */
async function sweepAll(): Promise<number[]> {
  const counts: number[] = [];
  for (let i = 0; i < 20; i++) {
    const n = await sweep();
    if (n === 0) return counts;
    counts.push(n);
  }
  throw new Error("the sweeps never ran out of runs");
}

describe("retention", () => {
  it("deletes finished runs past their time with their step records, and nothing unfinished, recent or still needed", async () => {
    const owner = await newUser();
    const { key } = await newApiKey(owner);
    const byDefault = await newWorkflow(key, { steps: setStep });
    const atOnce = await newWorkflow(key, { steps: setStep, settings: { retention_days: 0 } });
    const keptLong = await newWorkflow(key, { steps: setStep, settings: { retention_days: 365 } });
    const now = Date.now();
    const old = now - 40 * DAY;
    const r = {
      oldDone: runId("old_done"),
      oldFailed: runId("old_failed"),
      recent: runId("recent"),
      oldRunning: runId("old_running"),
      waitingParent: runId("waiting_parent"),
      childOfWaiting: runId("child_of_waiting"),
      zeroDone: runId("zero_done"),
      zeroQueued: runId("zero_queued"),
      longKept: runId("long_kept"),
    };
    await seedRuns([
      { id: r.oldDone, userId: owner.id, workflowId: byDefault.id, createdAt: old },
      { id: r.oldFailed, userId: owner.id, workflowId: byDefault.id, createdAt: old, status: "failed", error: "boom" },
      { id: r.recent, userId: owner.id, workflowId: byDefault.id, createdAt: now - DAY },
      { id: r.oldRunning, userId: owner.id, workflowId: byDefault.id, createdAt: old, status: "running" },
      { id: r.waitingParent, userId: owner.id, workflowId: byDefault.id, createdAt: old, status: "waiting" },
      { id: r.childOfWaiting, userId: owner.id, workflowId: byDefault.id, createdAt: old, parentId: r.waitingParent, trigger: "child" },
      { id: r.zeroDone, userId: owner.id, workflowId: atOnce.id, createdAt: now - 1000 },
      { id: r.zeroQueued, userId: owner.id, workflowId: atOnce.id, createdAt: now - 1000, status: "queued" },
      { id: r.longKept, userId: owner.id, workflowId: keptLong.id, createdAt: old },
    ]);
    await seedSteps(r.oldDone, 10);
    await seedSteps(r.zeroDone, 3);
    // Hold the queued run back from any runner: it is only there to be left alone.
    await env.DB.prepare("UPDATE executions SET lease_until = ? WHERE id = ?")
      .bind(now + DAY, r.zeroQueued)
      .run();

    await sweepAll();

    for (const gone of [r.oldDone, r.oldFailed, r.zeroDone]) expect(await runExists(gone)).toBe(false);
    expect(await stepCount(r.oldDone)).toBe(0);
    expect(await stepCount(r.zeroDone)).toBe(0);
    for (const kept of [r.recent, r.oldRunning, r.waitingParent, r.childOfWaiting, r.zeroQueued, r.longKept]) expect(await runExists(kept)).toBe(true);
    // A deleted run leaves the search index too.
    const found = await call(`/v1/executions?q=boom`, { token: key });
    expect((await found.json<{ data: unknown[] }>()).data).toEqual([]);
  });

  it("deletes in bounded batches: runs per sweep, and step rows per sweep", async () => {
    const owner = await newUser();
    const { key } = await newApiKey(owner);
    const workflow = await newWorkflow(key, { steps: setStep, settings: { retention_days: 0 } });
    const extra = 5;
    const many = Array.from({ length: RETENTION_RUNS_PER_SWEEP + extra }, (_, i) => ({
      id: runId(`many${i}`),
      userId: owner.id,
      workflowId: workflow.id,
      createdAt: Date.now() - 60_000,
    }));
    await seedRuns(many);
    expect(await sweepAll()).toEqual([RETENTION_RUNS_PER_SWEEP, extra]);

    // A run with more step records than one sweep deletes goes over two sweeps, its row last.
    const big = runId("big");
    await seedRuns([{ id: big, userId: owner.id, workflowId: workflow.id, createdAt: Date.now() - 60_000 }]);
    await seedSteps(big, RETENTION_ROWS_PER_SWEEP + 10);
    expect(await sweep()).toBe(0);
    expect(await stepCount(big)).toBe(10);
    expect(await runExists(big)).toBe(true);
    expect(await sweep()).toBe(1);
    expect(await runExists(big)).toBe(false);
  });
});

describe("DELETE /v1/executions/{id}", () => {
  it("deletes a finished run with its steps (204), refuses an unfinished one (409) and hides other users' (404)", async () => {
    const owner = await newUser();
    const { key } = await newApiKey(owner);
    const workflow = await newWorkflow(key, { steps: setStep });
    const done = await execute(key, workflow.id, { note: "delete me" });
    await settled(key, done);
    expect(await stepCount(done)).toBe(1);

    const stranger = await newApiKey(await newUser());
    await expectProblem(await call(`/v1/executions/${done}`, { method: "DELETE", token: stranger.key }), 404, "not_found");
    expect(await runExists(done)).toBe(true);

    const deleted = await call(`/v1/executions/${done}`, { method: "DELETE", token: key });
    expect(deleted.status).toBe(204);
    expect(await stepCount(done)).toBe(0);
    expect((await call(`/v1/executions/${done}`, { token: key })).status).toBe(404);
    await expectProblem(await call(`/v1/executions/${done}`, { method: "DELETE", token: key }), 404, "not_found");

    const running = runId("running");
    const parent = runId("parent");
    const child = runId("child");
    await seedRuns([
      { id: running, userId: owner.id, workflowId: workflow.id, status: "running" },
      { id: parent, userId: owner.id, workflowId: workflow.id, status: "waiting" },
      { id: child, userId: owner.id, workflowId: workflow.id, parentId: parent, trigger: "child" },
    ]);
    await env.DB.prepare("UPDATE executions SET lease_until = ? WHERE id IN (?, ?)")
      .bind(Date.now() + DAY, running, parent)
      .run();
    await expectProblem(await call(`/v1/executions/${running}`, { method: "DELETE", token: key }), 409, "conflict");
    // A finished child whose parent still waits for it stays; so does the parent.
    await expectProblem(await call(`/v1/executions/${child}`, { method: "DELETE", token: key }), 409, "conflict");
    expect(await runExists(child)).toBe(true);
  });
});
