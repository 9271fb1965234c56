import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runtimeFor } from "../../src/core/context";
import { executionNotifications } from "../../src/db/schema";
import { deliverNotification } from "../../src/executions/notifications";
import { newApiKey, newUser } from "../helpers/api";
import { FAKE, newScenario } from "../conversations/helpers";
import { execute, newWorkflow, settled } from "../helpers/runs";

const LIMIT = 2;

afterEach(() => {
  vi.useRealTimers();
});

async function notificationRows(executionId: string) {
  const { results } = await env.DB.prepare("SELECT id, status, attempts, attempt_log, next_attempt_at FROM execution_notifications WHERE execution_id = ?")
    .bind(executionId)
    .all<{ id: string; status: string; attempts: number; attempt_log: string; next_attempt_at: number }>();
  return results;
}

describe("notifications count against their owner's limit per minute", () => {
  it("sends the limit's worth at once; the rest wait for later windows, a limit's worth each, without spending attempts", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("notifylimit");
    await fetch(`${FAKE()}/__respond/${scenario}`, { method: "POST", body: JSON.stringify({ status: 204, body: null }) });
    const url = `${FAKE()}/s/${scenario}/hook`;
    // Notifies only failures, so the run itself sets off nothing: the notifications below are the test's.
    const workflow = await newWorkflow(key, {
      settings: { notify: { url, events: ["execution.failed"] } },
      steps: [{ id: "a", type: "set", values: { x: 1 } }],
    });
    const executionId = await execute(key, workflow.id);
    await settled(key, executionId);
    expect(await notificationRows(executionId)).toEqual([]);

    // The limiter counts in one-minute windows by the clock, which the object shares with this test.
    const windowEnd = (Math.floor(Date.now() / 60_000) + 1) * 60_000;
    vi.useFakeTimers({ toFake: ["Date"], now: windowEnd + 1_000 });
    const runtime = runtimeFor({ ...env, NOTIFY_RATE_LIMIT_PER_MINUTE: String(LIMIT) } as never);
    const ids = Array.from({ length: LIMIT + 5 }, (_, i) => `ntf_limit${scenario.slice(-8)}${i}`);
    await runtime.db
      .insert(executionNotifications)
      .values(ids.map((id) => ({ id, executionId, event: "execution.succeeded", url, nextAttemptAt: new Date(Date.now() - 1_000) })));

    await Promise.all(ids.map((id) => deliverNotification(runtime, id)));
    const sent = async () => ((await (await fetch(`${FAKE()}/__requests/${scenario}`)).json()) as unknown[]).length;
    expect(await sent()).toBe(LIMIT);
    const rows = await notificationRows(executionId);
    expect(rows.filter((row) => row.status === "delivered").map((row) => row.attempts)).toEqual([1, 1]);
    const waiting = rows.filter((row) => row.status === "pending");
    expect(waiting).toHaveLength(5);
    // Not tried, so no attempt spent or logged; due when the window ends, then a limit's worth per window.
    for (const row of waiting) expect({ attempts: row.attempts, log: JSON.parse(row.attempt_log) }).toEqual({ attempts: 0, log: [] });
    const nextWindow = windowEnd + 60_000;
    expect(waiting.map((row) => row.next_attempt_at).sort()).toEqual([nextWindow, nextWindow, nextWindow + 60_000, nextWindow + 60_000, nextWindow + 120_000]);

    // In the next window, those due then are sent; the others still wait their turn.
    vi.setSystemTime(nextWindow);
    await Promise.all(waiting.map((row) => deliverNotification(runtime, row.id)));
    expect(await sent()).toBe(LIMIT + 2);
    const later = await notificationRows(executionId);
    expect(later.filter((row) => row.status === "delivered").map((row) => row.attempts)).toEqual([1, 1, 1, 1]);
    expect(later.filter((row) => row.status === "pending")).toHaveLength(3);
  });
});
