import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { runsQuery } from "../../src/executions/list";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { execute, newWorkflow, settled } from "../helpers/runs";
import { runId, seedRuns } from "./run-rows";

const list = async (key: string, query: string) => {
  const response = await call(`/v1/executions?${query}`, { token: key });
  expect(response.status).toBe(200);
  return json(response);
};
const ids = (page: { data: { id: string }[] }) => page.data.map((run) => run.id);

describe("GET /v1/executions", () => {
  it("lists the caller's runs across workflows newest first, each filter narrowing it, paged", async () => {
    const owner = await newUser();
    const { key } = await newApiKey(owner);
    const first = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const second = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const stranger = await newUser();
    const strangerKey = (await newApiKey(stranger)).key;
    const theirs = await newWorkflow(strangerKey, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });

    const t0 = Date.UTC(2026, 0, 1);
    const hour = 3600_000;
    const runs = {
      invoice: runId("invoice"),
      failed: runId("failed"),
      hooked: runId("hooked"),
      waiting: runId("waiting"),
      old: runId("old"),
      theirs: runId("theirs"),
    };
    await seedRuns([
      { id: runs.old, userId: owner.id, workflowId: first.id, createdAt: t0, input: { note: "older one" } },
      { id: runs.invoice, userId: owner.id, workflowId: first.id, createdAt: t0 + hour, input: { customer: "Åsa", subject: "Invoice 42 overdue" } },
      { id: runs.failed, userId: owner.id, workflowId: second.id, createdAt: t0 + 2 * hour, status: "failed", error: "Slack said channel_not_found" },
      { id: runs.hooked, userId: owner.id, workflowId: second.id, createdAt: t0 + 3 * hour, trigger: "webhook", agentId: "agt_listtest" },
      { id: runs.waiting, userId: owner.id, workflowId: first.id, createdAt: t0 + 4 * hour, status: "waiting", input: { subject: "invoice reminder" } },
      { id: runs.theirs, userId: stranger.id, workflowId: theirs.id, createdAt: t0 + 5 * hour, input: { subject: "Invoice 42 overdue" } },
    ]);
    const mine = [runs.waiting, runs.hooked, runs.failed, runs.invoice, runs.old];
    const window = `started_before=${new Date(t0 + 10 * hour).toISOString()}`;

    expect(ids(await list(key, window))).toEqual(mine);
    expect(ids(await list(key, `${window}&status=failed`))).toEqual([runs.failed]);
    expect(ids(await list(key, `${window}&workflow_id=${second.id}`))).toEqual([runs.hooked, runs.failed]);
    expect(ids(await list(key, `${window}&agent_id=agt_listtest`))).toEqual([runs.hooked]);
    expect(ids(await list(key, `${window}&trigger=webhook`))).toEqual([runs.hooked]);
    expect(ids(await list(key, `started_after=${new Date(t0 + hour).toISOString()}&started_before=${new Date(t0 + 3 * hour).toISOString()}`))).toEqual([
      runs.failed,
      runs.invoice,
    ]);
    // q: every word, in the input or the error, as a word or its start; case and accents ignored; never another user's.
    expect(ids(await list(key, `${window}&q=invoice`))).toEqual([runs.waiting, runs.invoice]);
    expect(ids(await list(key, `${window}&q=${encodeURIComponent("INVOICE 42")}`))).toEqual([runs.invoice]);
    expect(ids(await list(key, `${window}&q=asa`))).toEqual([runs.invoice]);
    expect(ids(await list(key, `${window}&q=channel_not`))).toEqual([runs.failed]);
    expect(ids(await list(key, `${window}&q=${encodeURIComponent('"overdue" OR')}`))).toEqual([]);
    expect(ids(await list(strangerKey, `${window}&q=invoice`))).toEqual([runs.theirs]);
    // Another user's workflow or agent as a filter shows nothing of theirs.
    expect(ids(await list(strangerKey, `workflow_id=${first.id}`))).toEqual([]);

    // Pages of two, following next_cursor, give the same runs in the same order, then null.
    const paged: string[] = [];
    let cursor: string | null = "";
    do {
      const page = await list(key, `${window}&limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.data.length).toBeLessThanOrEqual(2);
      paged.push(...ids(page));
      cursor = page.next_cursor;
    } while (cursor);
    expect(paged).toEqual(mine);

    const entry = (await list(key, `${window}&trigger=webhook`)).data[0];
    expect(entry).toMatchObject({ id: runs.hooked, workflow_id: second.id, trigger: "webhook", agent_id: "agt_listtest", status: "succeeded" });
    expect(entry.steps).toBeUndefined();
  });

  it("answers 422 for an unknown status or trigger, a bad time or a q without words", async () => {
    const { key } = await newApiKey(await newUser());
    await expectProblem(await call("/v1/executions?status=finished", { token: key }), 422, "validation_failed");
    await expectProblem(await call("/v1/executions?trigger=cron", { token: key }), 422, "validation_failed");
    await expectProblem(await call("/v1/executions?started_after=yesterday", { token: key }), 422, "validation_failed");
    await expectProblem(await call("/v1/executions?q=%21%21", { token: key }), 422, "validation_failed");
  });

  it("records what started a run: a run by the API is manual and found by its input", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const id = await execute(key, workflow.id, { order: "A-1138" });
    await settled(key, id);
    expect((await list(key, "q=A-1138&trigger=manual")).data).toMatchObject([{ id, trigger: "manual", status: "succeeded" }]);
  });

  it("reads each filter's page through an index, never a scan of every run (EXPLAIN QUERY PLAN)", async () => {
    const db = createDb(env.DB);
    // Each shape and the index that must serve it (its leading columns are the filter's equalities).
    const shapes = {
      all: [{}, "executions_user_created_idx"],
      status: [{ status: "failed" as const }, "executions_user_status_created_idx"],
      workflow: [{ workflow_id: 1 }, "executions_user_workflow_idx"],
      agent: [{ agent_id: "agt_x" }, "executions_user_agent_idx"],
      trigger: [{ trigger: "webhook" as const }, "executions_user_trigger_idx"],
      window: [{ started_after: "2026-01-01T00:00:00Z", started_before: "2026-02-01T00:00:00Z" }, "executions_user_created_idx"],
      q: [{ q: "invoice overdue" }, "executions_user_created_idx"],
    } as const;
    for (const [name, [filters, index]] of Object.entries(shapes)) {
      const { sql, params } = runsQuery(db, 1, filters, 21, { c: Date.now(), id: "exe_x" }).toSQL();
      const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .bind(...params)
        .all<{ detail: string }>();
      const details = plan.results.map((row) => row.detail);
      console.log(`plan[${name}]: ${details.join(" | ")}`);
      expect(details[0]).toContain(`USING INDEX ${index} `);
      // The runs are found by an index (or by rowid from the search index), never by a scan of the table.
      expect(details.some((detail) => /^SCAN executions\b(?! USING)/.test(detail))).toBe(false);
      if (name !== "q") expect(details.join(" ")).not.toContain("TEMP B-TREE");
    }
  });
});
