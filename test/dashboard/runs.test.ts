import { describe, expect, it } from "vitest";
import { call, json } from "../helpers/api";
import { runId, seedRuns } from "../executions/run-rows";
import { newWorkflow } from "../helpers/runs";
import { Browser, newEmail } from "./browser";

describe("the runs page", () => {
  it("lists the person's runs across workflows with the API's filters, and no one else's", async () => {
    expect((await call("/app/runs")).status).toBe(303);
    const browser = new Browser();
    await browser.register(newEmail());
    const token = await browser.apiKey();
    const me = await json(await call("/v1/me", { token }));
    const workflow = await newWorkflow(token, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const failed = runId("page_failed");
    const done = runId("page_done");
    await seedRuns([
      { id: done, userId: me.id, workflowId: workflow.id, input: { order: "Z-77" }, createdAt: Date.UTC(2026, 2, 1, 12) },
      { id: failed, userId: me.id, workflowId: workflow.id, status: "failed", error: "Quota hit", trigger: "webhook", createdAt: Date.UTC(2026, 2, 2, 12) },
    ]);

    const all = await (await browser.request("/app/runs")).text();
    expect(all).toContain('<a href="/app/runs">Runs</a>');
    expect(all.indexOf(failed)).toBeGreaterThan(-1);
    expect(all.indexOf(failed)).toBeLessThan(all.indexOf(done));

    const onlyFailed = await (await browser.request("/app/runs?status=failed&trigger=webhook")).text();
    expect(onlyFailed).toContain(failed);
    expect(onlyFailed).not.toContain(done);
    expect(onlyFailed).toContain('<option value="failed" selected="">failed</option>');
    const byText = await (await browser.request("/app/runs?q=z-77&from=2026-03-01&until=2026-03-01")).text();
    expect(byText).toContain(done);
    expect(byText).not.toContain(failed);

    const bad = await browser.request("/app/runs?from=March");
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("Give days as YYYY-MM-DD.");

    const stranger = new Browser();
    await stranger.register(newEmail());
    const theirs = await (await stranger.request("/app/runs")).text();
    expect(theirs).toContain("No runs match.");
    expect(theirs).not.toContain(done);
  });
});
