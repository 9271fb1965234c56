import { createExecutionContext, createScheduledController, evictDurableObject, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AutomationAgent } from "../../src/agents/automation-agent";
import { agentObject } from "../../src/agents/schedules";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow } from "../helpers/runs";
import worker from "../../src/index";

const runsOf = async (agentId: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM executions WHERE agent_id = ?").bind(agentId).first<{ n: number }>())!.n;

async function waitFor(check: () => Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await scheduler.wait(100);
  }
}

const schedulesIn = async (agentId: string) => {
  const stub = await agentObject(env, agentId);
  return runInDurableObject(stub as any, async (instance: AutomationAgent) => instance.getSchedules().length);
};

describe("agent schedules", () => {
  it("fire on an interval through the agent's Durable Object, idempotently, and stop when removed", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    const body = { agent_id: agent.agent_id, schedule_config: { type: "interval", interval_seconds: 1 } };
    const scheduled = await json(await call("/v1/agents/schedule", { token: key, json: body }));
    expect(scheduled).toMatchObject({ trigger_type: "schedule", schedule: { type: "interval", interval_seconds: 1 } });
    expect(Date.parse(scheduled.monitoring.next_run_at)).toBeGreaterThan(Date.now() - 1000);

    // Scheduling again, and a restart of the object, never add a second schedule.
    await call("/v1/agents/schedule", { token: key, json: body });
    await call("/v1/agents/schedule", { token: key, json: body });
    expect(await schedulesIn(agent.agent_id)).toBe(1);
    await evictDurableObject((await agentObject(env, agent.agent_id)) as any);
    expect(await schedulesIn(agent.agent_id)).toBe(1);

    await waitFor(async () => (await runsOf(agent.agent_id)) >= 2, 10_000);
    const run = await env.DB.prepare("SELECT input FROM executions WHERE agent_id = ? LIMIT 1").bind(agent.agent_id).first<{ input: string }>();
    expect(JSON.parse(run!.input)).toMatchObject({ trigger: "schedule" });

    const removed = await json(await call(`/v1/agents/${agent.agent_id}/schedule`, { method: "DELETE", token: key }));
    expect(removed).toMatchObject({ trigger_type: "manual", schedule: null, monitoring: { next_run_at: null } });
    expect(await schedulesIn(agent.agent_id)).toBe(0);
    const after = await runsOf(agent.agent_id);
    await scheduler.wait(2500);
    expect(await runsOf(agent.agent_id)).toBe(after);
  }, 30_000);

  it("accept standard 5-field cron, in UTC or an IANA time zone, and refuse anything else", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    const schedule = (schedule_config: unknown) => call("/v1/agents/schedule", { token: key, json: { agent_id: agent.agent_id, schedule_config } });
    const weekly = await json(await schedule({ type: "cron", cron_expression: "0 9 * * 1" }));
    expect(weekly.schedule).toMatchObject({ type: "cron", cron_expression: "0 9 * * 1", timezone: "UTC" });
    const next = new Date(weekly.monitoring.next_run_at);
    expect([next.getUTCDay(), next.getUTCHours(), next.getUTCMinutes()]).toEqual([1, 9, 0]);
    await expectProblem(await schedule({ type: "cron", cron_expression: "every monday" }), 422, "validation_failed");
    // Read in a time zone: 09:00 in Berlin is 08:00 UTC in winter and 07:00 UTC in summer.
    const berlin = await json(await schedule({ type: "cron", cron_expression: "0 9 * * *", timezone: "Europe/Berlin" }));
    expect(berlin.schedule).toMatchObject({ timezone: "Europe/Berlin" });
    const nextBerlin = new Date(berlin.monitoring.next_run_at);
    const berlinHour = Number(new Intl.DateTimeFormat("en-US", { timeZone: "Europe/Berlin", hour: "numeric", hourCycle: "h23" }).format(nextBerlin));
    expect([berlinHour, nextBerlin.getUTCMinutes()]).toEqual([9, 0]);
    expect(nextBerlin.getTime()).toBeGreaterThan(Date.now());
    expect(nextBerlin.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    await expectProblem(await schedule({ type: "cron", cron_expression: "0 9 * * 1", timezone: "Mars/Olympus_Mons" }), 422, "validation_failed");
    await expectProblem(await schedule({ type: "interval", interval_seconds: 0 }), 422, "validation_failed");
    const stranger = await newApiKey(await newUser());
    await expectProblem(
      await call("/v1/agents/schedule", {
        token: stranger.key,
        json: { agent_id: agent.agent_id, schedule_config: { type: "interval", interval_seconds: 60 } },
      }),
      404,
      "not_found",
    );
    await call(`/v1/agents/${agent.agent_id}/schedule`, { method: "DELETE", token: key });
  });
});

describe("a cron expression that never fires", () => {
  it("is refused with 422 on its field, and the agent keeps its current schedule", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    const agentId = agent.agent_id as string;
    const schedule = (schedule_config: unknown) => call("/v1/agents/schedule", { token: key, json: { agent_id: agentId, schedule_config } });
    const before = await json(await schedule({ type: "interval", interval_seconds: 3600 }));
    expect(before.monitoring.next_run_at).not.toBeNull();

    // 31 February parses as cron but matches no date, in UTC or in a time zone.
    for (const timezone of ["UTC", "Europe/Berlin"]) {
      const refused = await expectProblem(await schedule({ type: "cron", cron_expression: "0 0 31 2 *", timezone }), 422, "validation_failed");
      expect(refused.errors).toEqual([expect.objectContaining({ field: "schedule_config.cron_expression", message: expect.stringContaining("never fires") })]);
    }
    const after = await json(await call(`/v1/agents/${agentId}`, { token: key }));
    expect(after).toMatchObject({ trigger_type: "schedule", schedule: { type: "interval", interval_seconds: 3600 } });
    expect(after.monitoring.next_run_at).toBe(before.monitoring.next_run_at);
    expect(await schedulesIn(agentId)).toBe(1);

    // The agent's object itself finds the next run before cancelling anything: asked directly, it
    // fails and the interval is still armed.
    const stub = await agentObject(env, agentId);
    const outcome = await runInDurableObject(stub as any, async (instance: AutomationAgent) => {
      try {
        await instance.applySchedule(agentId, { type: "cron", cron_expression: "0 0 31 2 *", timezone: "UTC" });
        return "applied";
      } catch (error) {
        return String(error);
      }
    });
    expect(outcome).toContain("No valid next date");
    expect(await schedulesIn(agentId)).toBe(1);
    await call(`/v1/agents/${agentId}/schedule`, { method: "DELETE", token: key });
  });
});

describe("scheduled runs happen once per due time", () => {
  async function hourlyAgent(key: string) {
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    await call("/v1/agents/schedule", { token: key, json: { agent_id: agent.agent_id, schedule_config: { type: "interval", interval_seconds: 3600 } } });
    return agent.agent_id as string;
  }
  const setDue = (agentId: string, at: number) => env.DB.prepare("UPDATE agents SET next_run_at = ? WHERE id = ?").bind(at, agentId).run();
  const nextRunAt = async (agentId: string) =>
    (await env.DB.prepare("SELECT next_run_at FROM agents WHERE id = ?").bind(agentId).first<{ next_run_at: number }>())!.next_run_at;

  it("a duplicated alarm does not double-run", async () => {
    const { key } = await newApiKey(await newUser());
    const agentId = await hourlyAgent(key);
    const due = Date.now() - 1000;
    await setDue(agentId, due);
    const stub = await agentObject(env, agentId);
    const fired = await Promise.all([stub.fire({ agentId }), stub.fire({ agentId }), stub.fire({ agentId })]);
    expect(fired.filter(Boolean)).toHaveLength(1);
    expect(await runsOf(agentId)).toBe(1);
    expect(await nextRunAt(agentId)).toBe(due + 3600_000);
    await call(`/v1/agents/${agentId}/schedule`, { method: "DELETE", token: key });
  });

  it("the cron backstop serves an agent whose alarm is overdue, once, and the late alarm then does nothing", async () => {
    const { key } = await newApiKey(await newUser());
    const agentId = await hourlyAgent(key);
    const due = Date.now() - 5 * 60_000;
    await setDue(agentId, due);
    const sweep = async () => {
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ scheduledTime: new Date(), cron: "* * * * *" }), env, ctx);
      await waitOnExecutionContext(ctx);
    };
    await sweep();
    await sweep();
    expect(await runsOf(agentId)).toBe(1);
    const run = await env.DB.prepare("SELECT input FROM executions WHERE agent_id = ?").bind(agentId).first<{ input: string }>();
    expect(JSON.parse(run!.input)).toMatchObject({ trigger: "schedule", fired_by: "backstop", due_at: new Date(due).toISOString() });
    // The next due time is the first slot after now, not a burst of missed ones.
    expect(await nextRunAt(agentId)).toBe(due + 3600_000);
    expect(await (await agentObject(env, agentId)).fire({ agentId })).toBe(false);
    await call(`/v1/agents/${agentId}/schedule`, { method: "DELETE", token: key });
  });
});

describe("cron schedules", () => {
  it("keep exactly one alarm armed, for the next due time, after each fire", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    const agentId = agent.agent_id as string;
    const scheduled = await json(
      await call("/v1/agents/schedule", {
        token: key,
        json: { agent_id: agentId, schedule_config: { type: "cron", cron_expression: "0 9 * * *", timezone: "Europe/Berlin" } },
      }),
    );
    expect(await schedulesIn(agentId)).toBe(1);
    // Pretend the alarm is due now.
    await env.DB.prepare("UPDATE agents SET next_run_at = ? WHERE id = ?")
      .bind(Date.now() - 1000, agentId)
      .run();
    const stub = await agentObject(env, agentId);
    expect(await stub.fire({ agentId })).toBe(true);
    expect(await runsOf(agentId)).toBe(1);
    // The next due is the next 09:00 in Berlin, already armed: still one alarm.
    const next = (await env.DB.prepare("SELECT next_run_at FROM agents WHERE id = ?").bind(agentId).first<{ next_run_at: number }>())!.next_run_at;
    expect(new Date(next).toISOString()).toBe(scheduled.monitoring.next_run_at);
    expect(await schedulesIn(agentId)).toBe(1);
    await call(`/v1/agents/${agentId}/schedule`, { method: "DELETE", token: key });
    expect(await schedulesIn(agentId)).toBe(0);
  });
});
