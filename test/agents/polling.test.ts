import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AutomationAgent } from "../../src/agents/automation-agent";
import { REMEMBERED_KEYS } from "../../src/agents/poll-keys";
import { agentObject } from "../../src/agents/schedules";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow } from "../helpers/runs";

/** A feed on the loopback fake whose items the test sets. */
function feed() {
  const scenario = `poll-${crypto.randomUUID()}`;
  return {
    url: `${env.TEST_FAKE_URL}/s/${scenario}/items`,
    set: (items: unknown[]) =>
      fetch(`${env.TEST_FAKE_URL}/__respond/${scenario}`, { method: "POST", body: JSON.stringify({ status: 200, body: { items, has_more: false } }) }),
    fail: (status: number, body: unknown) => fetch(`${env.TEST_FAKE_URL}/__respond/${scenario}`, { method: "POST", body: JSON.stringify({ status, body }) }),
  };
}

const item = (id: string) => ({ id, email: `${id}@example.com` });

async function pollingAgent(url: string, trigger: Record<string, unknown> = {}) {
  const { key } = await newApiKey(await newUser());
  const workflow = await newWorkflow(key, {
    trigger_type: "poll",
    // A long interval: the test polls by hand, the alarm only makes the first (baseline) poll.
    trigger_config: { tool: "http_request", arguments: { url }, interval_seconds: 3600, items_path: "body.items", id_path: "id", ...trigger },
    steps: [{ id: "note", type: "set", values: { email: "{{input.item.email}}" } }],
  });
  const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
  return { key, agent, workflow };
}

const pollNow = async (agentId: string) => {
  const stub = await agentObject(env, agentId);
  await runInDurableObject(stub as any, (instance: AutomationAgent) => instance.poll({ agentId }));
};
const inDurableObject = async <T>(agentId: string, fn: (instance: AutomationAgent) => T | Promise<T>) =>
  runInDurableObject((await agentObject(env, agentId)) as any, fn as any) as Promise<T>;

const eventsOf = async (key: string, agentId: string) => (await json(await call(`/v1/agents/${agentId}/events?limit=100`, { token: key }))).data as any[];
const runInputs = async (agentId: string) =>
  (await env.DB.prepare("SELECT input FROM executions WHERE agent_id = ? ORDER BY created_at, rowid").bind(agentId).all<{ input: string }>()).results.map(
    (row) => JSON.parse(row.input),
  );

async function waitFor<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value: ${JSON.stringify(value)}`);
    await scheduler.wait(100);
  }
}

const baselined = (key: string, agentId: string) =>
  waitFor(
    () => eventsOf(key, agentId),
    (events) => events.some((e) => e.detail?.startsWith("First poll")),
  );

describe("poll triggers", () => {
  it("deploying polls at once and remembers what is there; each new item then starts one run, in the order returned", async () => {
    const source = feed();
    await source.set([item("a"), item("b")]);
    const { key, agent } = await pollingAgent(source.url);
    expect(agent.trigger).toMatchObject({ type: "poll", interval_seconds: 3600 });
    expect(agent.trigger.next_poll_at).not.toBeNull();
    await baselined(key, agent.agent_id);
    expect(await runInputs(agent.agent_id)).toEqual([]);

    await source.set([item("d"), item("c"), item("a"), item("b")]);
    await pollNow(agent.agent_id);
    expect(await runInputs(agent.agent_id)).toEqual([{ item: item("d") }, { item: item("c") }]);
    const events = await eventsOf(key, agent.agent_id);
    expect(events.filter((e) => e.outcome === "started").map((e) => e.event_id)).toEqual(expect.arrayContaining(["c", "d"]));

    // Nothing new: nothing starts, and quiet polls share one log entry.
    await pollNow(agent.agent_id);
    await pollNow(agent.agent_id);
    expect(await runInputs(agent.agent_id)).toHaveLength(2);
    const quiet = (await eventsOf(key, agent.agent_id)).filter((e) => e.detail?.startsWith("No new items"));
    expect(quiet).toHaveLength(1);
    expect(quiet[0].detail).toMatch(/in 2 polls/);
    const shown = await json(await call(`/v1/agents/${agent.agent_id}`, { token: key }));
    expect(Date.parse(shown.trigger.next_poll_at)).toBeGreaterThan(Date.now() + 3000_000);
    expect(shown.trigger.last_event_at).not.toBeNull();
  });

  it("an item started by a poll that was cut off before remembering it is not started again", async () => {
    const source = feed();
    await source.set([]);
    const { key, agent } = await pollingAgent(source.url);
    await baselined(key, agent.agent_id);
    await source.set([item("x")]);
    await pollNow(agent.agent_id);
    // As if the object had died between starting the run and remembering the key.
    await inDurableObject(agent.agent_id, (instance) => (instance as any).ctx.storage.sql.exec("DELETE FROM poll_keys WHERE key = 'x'"));
    await pollNow(agent.agent_id);
    expect(await runInputs(agent.agent_id)).toEqual([{ item: item("x") }]);
    const outcomes = (await eventsOf(key, agent.agent_id)).filter((e) => e.event_id === "x").map((e) => e.outcome);
    expect(outcomes).toEqual(["duplicate", "started"]);
  });

  it("emit: batch starts one run with every new item; emit_existing starts the first poll's items too", async () => {
    const source = feed();
    await source.set([item("1"), item("2")]);
    const { key, agent } = await pollingAgent(source.url, { emit: "batch", emit_existing: true });
    await waitFor(
      () => runInputs(agent.agent_id),
      (runs) => runs.length === 1,
    );
    expect(await runInputs(agent.agent_id)).toEqual([{ items: [item("1"), item("2")] }]);
    await source.set([item("3"), item("1"), item("2"), item("4")]);
    await pollNow(agent.agent_id);
    expect((await runInputs(agent.agent_id))[1]).toEqual({ items: [item("3"), item("4")] });
    expect((await eventsOf(key, agent.agent_id))[0]).toMatchObject({ source: "poll", outcome: "started", detail: "2 new items in one run." });
  });

  it("emit: batch: a new trigger's first batch is not taken for an earlier trigger's that began with the same item", async () => {
    const source = feed();
    const other = feed();
    await source.set([item("1"), item("2")]);
    await other.set([item("1"), item("3")]);
    const { key, agent, workflow } = await pollingAgent(source.url, { emit: "batch", emit_existing: true });
    await waitFor(
      () => runInputs(agent.agent_id),
      (runs) => runs.length === 1,
    );
    // Another feed: a baseline again, whose poll count starts again at 1, with the same first item.
    const changed = await call(`/v1/workflows/${workflow.id}`, {
      method: "PUT",
      token: key,
      json: { trigger_type: "poll", trigger_config: { ...workflow.trigger_config, arguments: { url: other.url } } },
    });
    expect(changed.status).toBe(200);
    await pollNow(agent.agent_id);
    const batches = await waitFor(
      () => eventsOf(key, agent.agent_id),
      (events) => events.filter((e) => e.event_id?.startsWith("batch:")).length >= 2,
    );
    expect(batches.filter((e) => e.event_id?.startsWith("batch:")).map((e) => e.outcome)).toEqual(["started", "started"]);
    expect(await runInputs(agent.agent_id)).toEqual([{ items: [item("1"), item("2")] }, { items: [item("1"), item("3")] }]);
  });

  it("a failing poll is logged, shown as last_error and backs off (doubling); the next success resets it", async () => {
    const source = feed();
    await source.set([item("a")]);
    const { key, agent } = await pollingAgent(source.url, { interval_seconds: 60 });
    await baselined(key, agent.agent_id);
    await source.fail(503, { error: "maintenance" });
    await pollNow(agent.agent_id);
    await pollNow(agent.agent_id);
    const failing = await json(await call(`/v1/agents/${agent.agent_id}`, { token: key }));
    expect(failing.monitoring.last_error).toMatch(/Poll failed \(2 in a row; next in 240 s\)/);
    expect(Date.parse(failing.trigger.next_poll_at) - Date.now()).toBeGreaterThan(230_000);
    expect((await eventsOf(key, agent.agent_id))[0]).toMatchObject({ source: "poll", outcome: "error" });

    await source.set([item("a"), item("b")]);
    await pollNow(agent.agent_id);
    const healthy = await json(await call(`/v1/agents/${agent.agent_id}`, { token: key }));
    expect(Date.parse(healthy.trigger.next_poll_at) - Date.now()).toBeLessThan(61_000);
    expect(healthy.monitoring.last_error).toBeNull();
    expect(await runInputs(agent.agent_id)).toEqual([{ item: item("b") }]);
  });

  it("pausing stops polling and resuming starts it again (items that came meanwhile run); a trigger changed away from poll stops it", async () => {
    const source = feed();
    await source.set([item("a")]);
    const { key, agent, workflow } = await pollingAgent(source.url);
    await baselined(key, agent.agent_id);
    const paused = await json(await call(`/v1/agents/${agent.agent_id}/pause`, { method: "POST", token: key }));
    expect(paused.trigger.next_poll_at).toBeNull();
    expect(await inDurableObject(agent.agent_id, (i) => i.getSchedules().filter((s) => s.callback === "poll").length)).toBe(0);
    await source.set([item("b"), item("a")]);
    const resumed = await json(await call(`/v1/agents/${agent.agent_id}/resume`, { method: "POST", token: key }));
    expect(resumed.trigger.next_poll_at).not.toBeNull();
    await waitFor(
      () => runInputs(agent.agent_id),
      (runs) => runs.length === 1,
    );
    expect(await runInputs(agent.agent_id)).toEqual([{ item: item("b") }]);

    await call(`/v1/workflows/${workflow.id}`, { method: "PUT", token: key, json: { trigger_type: "manual", trigger_config: {} } });
    const manual = await json(await call(`/v1/agents/${agent.agent_id}`, { token: key }));
    expect(manual.trigger).toEqual({ type: "manual", last_event_at: expect.any(String) });
    expect(await inDurableObject(agent.agent_id, (i) => i.getSchedules().filter((s) => s.callback === "poll").length)).toBe(0);
  });

  it("a trigger changed to another feed and back sets its baseline again: the feed's items are not run", async () => {
    const source = feed();
    const broken = feed();
    await source.set([item("a"), item("b")]);
    await broken.fail(404, { error: "no such feed" });
    const { key, agent, workflow } = await pollingAgent(source.url);
    await baselined(key, agent.agent_id);
    const setUrl = (url: string) =>
      call(`/v1/workflows/${workflow.id}`, {
        method: "PUT",
        token: key,
        json: { trigger_type: "poll", trigger_config: { ...workflow.trigger_config, arguments: { url } } },
      });
    // A typo'd address whose polls fail, then the right one again.
    expect((await setUrl(broken.url)).status).toBe(200);
    await pollNow(agent.agent_id);
    expect((await setUrl(source.url)).status).toBe(200);
    await pollNow(agent.agent_id);
    await pollNow(agent.agent_id);
    expect(await runInputs(agent.agent_id)).toEqual([]);
  });

  it("keeps at least the last 10,000 keys, and never forgets one the latest poll returned", async () => {
    const source = feed();
    await source.set([]);
    const { key, agent } = await pollingAgent(source.url);
    await baselined(key, agent.agent_id);
    const remaining = await inDurableObject(agent.agent_id, (instance) => {
      const keys = (instance as any).keys as import("../../src/agents/poll-keys").PollKeys;
      const old = Array.from({ length: REMEMBERED_KEYS + 2000 }, (_, i) => `old-${i}`);
      keys.remember(old, 5);
      keys.remember(["old-0", "fresh"], 9);
      keys.prune(9);
      return { count: keys.count(), unseen: keys.unseen(["old-0", "fresh", `old-${REMEMBERED_KEYS + 1999}`, "old-1"]) };
    });
    expect(remaining.count).toBe(REMEMBERED_KEYS);
    // The two the latest poll returned stay, and so do the most recent others; the oldest go.
    expect(remaining.unseen).not.toContain("old-0");
    expect(remaining.unseen).not.toContain("fresh");
  });
});
