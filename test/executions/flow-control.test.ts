import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow, settled } from "../helpers/runs";
import { hmac } from "../helpers/provider-signatures";

/** Starts a run of the workflow; answers the 202's body. */
async function start(key: string, workflowId: number, input: Record<string, unknown>) {
  const response = await call(`/v1/workflows/${workflowId}/execute`, { token: key, json: { input_data: input } });
  expect(response.status).toBe(202);
  return json(response);
}

const row = (id: string) =>
  env.DB.prepare("SELECT status, lease_until, input FROM executions WHERE id = ?").bind(id).first<{ status: string; lease_until: number; input: string }>();

const runsOf = async (workflowId: number) =>
  (await env.DB.prepare("SELECT id FROM executions WHERE workflow_id = ?").bind(workflowId).all<{ id: string }>()).results.map((r) => r.id);

const echo = [{ id: "echo", type: "tool", tool: "text_template", arguments: { template: "{{input.customer}} #{{input.n}}" } }];

describe("flow control (settings.debounce, concurrency_key, rate_limit)", () => {
  it("debounce: three starts of one key within the window are one run, with the last input, and each is answered with its id; another key runs apart", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { settings: { debounce: { key: "{{input.customer}}", seconds: 2 } }, steps: echo });
    const answers = [];
    for (const n of [1, 2, 3]) answers.push(await start(key, workflow.id, { customer: "acme", n }));
    const other = await start(key, workflow.id, { customer: "globex", n: 9 });

    const ids = new Set(answers.map((answer) => answer.execution_id));
    expect(ids.size).toBe(1);
    expect(answers.every((answer) => answer.status === "queued")).toBe(true);
    expect(other.execution_id).not.toBe(answers[0].execution_id);

    const run = await settled(key, answers[0].execution_id);
    expect(run.status).toBe("succeeded");
    expect(run.input_data).toMatchObject({ customer: "acme", n: 3 });
    expect(run.steps[0].result.text).toBe("acme #3");
    expect((await settled(key, other.execution_id)).input_data).toMatchObject({ customer: "globex", n: 9 });
    expect((await runsOf(workflow.id)).sort()).toEqual([answers[0].execution_id, other.execution_id].sort());

    // The window has fired: the next start of the key is a new run.
    const later = await start(key, workflow.id, { customer: "acme", n: 4 });
    expect(later.execution_id).not.toBe(answers[0].execution_id);
    expect((await settled(key, later.execution_id)).input_data).toMatchObject({ n: 4 });
  }, 30_000);

  it("debounce: webhook deliveries join the window (each logged with its run, a replayed signature changes nothing); a repeated Idempotency-Key finds the run", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { settings: { debounce: { key: "{{input.customer}}", seconds: 2 } }, steps: echo });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    const signed = async (body: Record<string, unknown>) => {
      const raw = JSON.stringify(body);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = await hmac(agent.webhook_secret, `${timestamp}.${raw}`, "hex");
      return { body: raw, headers: { "Content-Type": "application/json", "X-Hub-Timestamp": timestamp, "X-Hub-Signature": `sha256=${signature}` } };
    };
    const hook = (request: { body: string; headers: Record<string, string> }) => call(`/v1/hooks/agents/${agent.agent_id}`, request);
    const first = await signed({ customer: "acme", n: 1 });
    const delivered = [await json(await hook(first)), await json(await hook(await signed({ customer: "acme", n: 2 })))];
    // The first delivery sent again, byte for byte: refused, and the window keeps n: 2.
    expect((await hook(first)).status).toBe(401);
    const idempotent = { token: key, json: { input_data: { customer: "acme", n: 3 } }, headers: { "Idempotency-Key": "acme-3" } };
    const keyed = await json(await call(`/v1/workflows/${workflow.id}/execute`, idempotent));
    const again = await call(`/v1/workflows/${workflow.id}/execute`, idempotent);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");

    const id = delivered[0].execution_id;
    expect([delivered[1].execution_id, keyed.execution_id, (await json(again)).execution_id]).toEqual([id, id, id]);
    const run = await settled(key, id);
    expect(run.input_data).toMatchObject({ customer: "acme", n: 3 });
    expect(await runsOf(workflow.id)).toEqual([id]);
    const events = await json(await call(`/v1/agents/${agent.agent_id}/events`, { token: key }));
    const started = events.data.filter((event: any) => event.outcome === "started");
    expect(started.map((event: any) => event.execution_id)).toEqual([id, id]);
  }, 30_000);

  it("debounce: max_seconds caps the delay from the window's first start; without it each start moves the run", async () => {
    const { key } = await newApiKey(await newUser());
    const capped = await newWorkflow(key, { settings: { debounce: { key: "{{input.customer}}", seconds: 3, max_seconds: 3 } }, steps: echo });
    const uncapped = await newWorkflow(key, { settings: { debounce: { key: "{{input.customer}}", seconds: 3 } }, steps: echo });
    const windowOf = (workflowId: number) =>
      env.DB.prepare("SELECT first_at, fires_at FROM debounce_windows WHERE workflow_id = ?").bind(workflowId).first<{ first_at: number; fires_at: number }>();

    const first = await start(key, capped.id, { customer: "acme", n: 1 });
    await start(key, uncapped.id, { customer: "acme", n: 1 });
    await scheduler.wait(20);
    await start(key, capped.id, { customer: "acme", n: 2 });
    await start(key, uncapped.id, { customer: "acme", n: 2 });

    const cappedWindow = (await windowOf(capped.id))!;
    expect(cappedWindow.fires_at).toBe(cappedWindow.first_at + 3000);
    expect((await row(first.execution_id))!.lease_until).toBe(cappedWindow.fires_at);
    const uncappedWindow = (await windowOf(uncapped.id))!;
    expect(uncappedWindow.fires_at).toBeGreaterThan(uncappedWindow.first_at + 3000);

    const run = await settled(key, first.execution_id);
    expect(run.input_data).toMatchObject({ n: 2 });
    expect(Date.parse(run.started_at)).toBeGreaterThanOrEqual(cappedWindow.fires_at);
  }, 30_000);

  it("concurrency_key: at most `concurrency` runs at once per key, while other keys run", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      settings: { concurrency: 1, concurrency_key: "{{input.customer}}" },
      steps: [{ id: "slow", type: "tool", tool: "wait", arguments: { seconds: 2 } }],
    });
    const a1 = (await start(key, workflow.id, { customer: "a" })).execution_id;
    const a2 = (await start(key, workflow.id, { customer: "a" })).execution_id;
    const b1 = (await start(key, workflow.id, { customer: "b" })).execution_id;
    const [ra1, ra2, rb1] = await Promise.all([a1, a2, b1].map((id) => settled(key, id, 30_000)));
    const span = (run: any) => ({ start: Date.parse(run.steps[0].started_at), end: Date.parse(run.steps[0].finished_at) });
    const [sa1, sa2, sb1] = [span(ra1), span(ra2), span(rb1)];
    // Key a: one after the other.
    expect(sa2.start >= sa1.end || sa1.start >= sa2.end).toBe(true);
    // Key b did not wait for key a's turn: it ran alongside one of them.
    const overlaps = (x: typeof sa1, y: typeof sa1) => x.start < y.end && y.start < x.end;
    expect(overlaps(sb1, sa1) || overlaps(sb1, sa2)).toBe(true);
  }, 40_000);

  it("rate_limit skip: past the limit a start is answered 202 skipped, runs nothing, and the agent's events log says so", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { settings: { rate_limit: { limit: 2, period_seconds: 3600, mode: "skip" } }, steps: echo });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    const answers = [];
    for (const n of [1, 2, 3]) {
      const response = await call(`/v1/agents/${agent.agent_id}/execute`, { token: key, json: { customer: "acme", n } });
      expect(response.status).toBe(202);
      answers.push(await json(response));
    }
    expect(answers[0].status).toBe("queued");
    expect(answers[1].status).toBe("queued");
    expect(answers[2]).toEqual({ status: "skipped", reason: "rate_limited" });
    // The workflow's own execute counts in the same limit.
    expect(await start(key, workflow.id, { n: 4 })).toEqual({ status: "skipped", reason: "rate_limited" });
    expect((await runsOf(workflow.id)).length).toBe(2);

    const events = await json(await call(`/v1/agents/${agent.agent_id}/events`, { token: key }));
    const skipped = events.data.filter((event: any) => event.outcome === "skipped");
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({ source: "manual", execution_id: null });
    expect(skipped[0].detail).toContain("rate_limit");
  });

  it("rate_limit queue: past the limit a start is queued to the next window and runs once it opens", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { settings: { rate_limit: { limit: 1, period_seconds: 2, mode: "queue" } }, steps: echo });
    // Both starts in the first half of one window, so the second is the one past the limit.
    while (Date.now() % 2000 > 1000) await scheduler.wait(50);
    const first = await start(key, workflow.id, { customer: "acme", n: 1 });
    const second = await start(key, workflow.id, { customer: "acme", n: 2 });
    expect(second.status).toBe("queued");
    const held = (await row(second.execution_id))!;
    expect(held.status).toBe("queued");
    // Not before the next window of 2 s.
    expect(held.lease_until % 2000).toBe(0);
    expect(held.lease_until).toBeGreaterThan(Date.now() - 2000);

    const [one, two] = await Promise.all([settled(key, first.execution_id), settled(key, second.execution_id)]);
    expect([one.status, two.status]).toEqual(["succeeded", "succeeded"]);
    expect(Date.parse(two.started_at)).toBeGreaterThanOrEqual(held.lease_until);
    expect(Math.floor(Date.parse(two.started_at) / 2000)).toBeGreaterThan(Math.floor(Date.parse(one.started_at) / 2000));
  }, 30_000);

  it("checks the settings: a key must be a placeholder, max_seconds at least seconds, concurrency_key with concurrency, limits bounded", async () => {
    const { key } = await newApiKey(await newUser());
    for (const settings of [
      { debounce: { key: "customer", seconds: 2 } },
      { debounce: { key: "{{input.customer}}", seconds: 10, max_seconds: 5 } },
      { debounce: { key: "{{input.customer}}", seconds: 0 } },
      { concurrency_key: "{{input.customer}}" },
      { rate_limit: { limit: 0, period_seconds: 60 } },
      { rate_limit: { limit: 1, period_seconds: 60, mode: "later" } },
    ]) {
      const response = await call("/v1/workflows", { token: key, json: { workflow_name: "bad", description: "x", settings, steps: echo } });
      expect(response.status, JSON.stringify(settings)).toBe(422);
    }
  });
});
