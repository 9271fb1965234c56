import { createExecutionContext, createScheduledController, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AutomationAgent } from "../../src/agents/automation-agent";
import { agentObject } from "../../src/agents/schedules";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow } from "../helpers/runs";
import worker from "../../src/index";

const steps = [{ id: "a", type: "set", values: { x: 1 } }];
const schedulesIn = async (agentId: string) => {
  const stub = await agentObject(env, agentId);
  return runInDurableObject(stub as any, async (instance: AutomationAgent) => instance.getSchedules().length);
};
const runsOf = async (agentId: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM executions WHERE agent_id = ?").bind(agentId).first<{ n: number }>())!.n;

async function cronTick() {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: new Date(), cron: "* * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("a workflow's trigger", () => {
  it("is one of four types, its config checked by type, with 422 naming the field", async () => {
    const { key } = await newApiKey(await newUser());
    const create = (body: Record<string, unknown>) => call("/v1/workflows", { token: key, json: { workflow_name: "T", description: "", steps, ...body } });
    const field = async (response: Response) => (await expectProblem(response, 422, "validation_failed")).errors?.map((e: any) => e.field);

    expect(await field(await create({ trigger_type: "email" }))).toEqual(["trigger_type"]);
    expect(await field(await create({ trigger_type: "schedule", trigger_config: { type: "cron", cron_expression: "every day" } }))).toEqual([
      "trigger_config.cron_expression",
    ]);
    expect(await field(await create({ trigger_type: "schedule", trigger_config: { type: "interval", interval_seconds: 0 } }))).toEqual([
      "trigger_config.interval_seconds",
    ]);
    expect(await field(await create({ trigger_type: "webhook", trigger_config: { verify: "carrier-pigeon" } }))).toEqual(["trigger_config.verify"]);
    expect(await field(await create({ trigger_type: "poll", trigger_config: { tool: "http_request", items_path: "items" } }))).toEqual(
      expect.arrayContaining(["trigger_config.interval_seconds", "trigger_config.id_path"]),
    );

    const hook = await newWorkflow(key, { steps, trigger_type: "webhook", trigger_config: { event_types: ["lead.created"] } });
    expect(hook).toMatchObject({ trigger_type: "webhook", trigger_config: { verify: "hub", event_types: ["lead.created"] } });
    const poll = await newWorkflow(key, {
      steps,
      trigger_type: "poll",
      trigger_config: { tool: "http_request", arguments: { url: "https://example.com" }, interval_seconds: 300, items_path: "body.items", id_path: "id" },
    });
    expect(poll.trigger_config).toMatchObject({ emit: "each", emit_existing: false });

    // Updating checks it too: a new type without a config starts from an empty one.
    const updated = await call(`/v1/workflows/${hook.id}`, { method: "PUT", token: key, json: { trigger_type: "schedule" } });
    expect((await expectProblem(updated, 422, "validation_failed")).errors?.[0]?.field).toMatch(/^trigger_config/);
  });

  it("from a template is armed on deploy, with no schedule call", async () => {
    const { key } = await newApiKey(await newUser());
    const { data: workflow } = await json(await call("/v1/templates/weekly-campaign-report/use", { token: key, method: "POST" }));
    expect(workflow).toMatchObject({ trigger_type: "schedule", trigger_config: { type: "cron", cron_expression: "0 9 * * 1", timezone: "UTC" } });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    expect(agent).toMatchObject({
      trigger_type: "schedule",
      schedule: { type: "cron", cron_expression: "0 9 * * 1" },
      trigger: { type: "schedule", last_event_at: null },
    });
    const next = new Date(agent.monitoring.next_run_at);
    expect([next.getUTCDay(), next.getUTCHours(), next.getUTCMinutes()]).toEqual([1, 9, 0]);
    expect(await schedulesIn(agent.agent_id)).toBe(1);
    await call(`/v1/agents/${agent.agent_id}`, { method: "DELETE", token: key });
    expect(await schedulesIn(agent.agent_id)).toBe(0);
  });

  it("re-arms the workflow's agents when it changes, and an explicit schedule still overrides", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps, trigger_type: "schedule", trigger_config: { type: "cron", cron_expression: "0 9 * * 1" } });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    const id = agent.agent_id as string;
    const show = async () => json(await call(`/v1/agents/${id}`, { token: key }));
    const update = (body: Record<string, unknown>) => call(`/v1/workflows/${workflow.id}`, { method: "PUT", token: key, json: body });

    expect((await update({ trigger_config: { type: "cron", cron_expression: "30 6 * * 3" } })).status).toBe(200);
    const rearmed = await show();
    expect(rearmed.schedule).toMatchObject({ cron_expression: "30 6 * * 3" });
    expect(rearmed.monitoring.next_run_at).not.toBe(agent.monitoring.next_run_at);
    expect(new Date(rearmed.monitoring.next_run_at).getUTCDay()).toBe(3);
    expect(await schedulesIn(id)).toBe(1);

    // A schedule set by hand overrides the workflow's.
    const hand = await json(
      await call("/v1/agents/schedule", { token: key, json: { agent_id: id, schedule_config: { type: "interval", interval_seconds: 3600 } } }),
    );
    expect(hand).toMatchObject({ schedule: { type: "interval", interval_seconds: 3600 }, trigger: { type: "schedule", interval_seconds: 3600 } });

    // Saving the workflow without touching its trigger leaves the agent alone.
    await update({ name: "Renamed" });
    expect((await show()).schedule).toMatchObject({ type: "interval" });

    expect((await update({ trigger_type: "manual", trigger_config: {} })).status).toBe(200);
    expect(await show()).toMatchObject({ trigger_type: "manual", schedule: null, trigger: { type: "manual" }, monitoring: { next_run_at: null } });
    expect(await schedulesIn(id)).toBe(0);

    expect((await update({ trigger_type: "webhook", trigger_config: { verify: "stripe", event_types: ["charge.succeeded"] } })).status).toBe(200);
    const hooked = await show();
    expect(hooked.trigger).toEqual({
      type: "webhook",
      verify: "stripe",
      event_types: ["charge.succeeded"],
      webhook_url: expect.stringMatching(new RegExp(`^https?://[^/]+/v1/hooks/agents/${id}$`)),
      last_event_at: null,
    });
    expect(JSON.stringify(hooked)).not.toContain("whsec_");
    await call(`/v1/agents/${id}`, { method: "DELETE", token: key });
  });

  it("is paused and resumed with its agent", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps, trigger_type: "schedule", trigger_config: { type: "interval", interval_seconds: 3600 } });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    const id = agent.agent_id as string;
    expect(agent.monitoring.next_run_at).not.toBeNull();

    const paused = await json(await call(`/v1/agents/${id}/pause`, { method: "POST", token: key }));
    expect(paused).toMatchObject({ status: "paused", schedule: { type: "interval", interval_seconds: 3600 }, monitoring: { next_run_at: null } });
    expect(await schedulesIn(id)).toBe(0);
    // Changing the workflow's trigger while paused keeps it disarmed.
    await call(`/v1/workflows/${workflow.id}`, { method: "PUT", token: key, json: { trigger_config: { type: "interval", interval_seconds: 1800 } } });
    expect(await schedulesIn(id)).toBe(0);
    await cronTick();
    expect(await runsOf(id)).toBe(0);

    const resumed = await json(await call(`/v1/agents/${id}/resume`, { method: "POST", token: key }));
    expect(resumed).toMatchObject({ status: "active", schedule: { interval_seconds: 1800 } });
    expect(Date.parse(resumed.monitoring.next_run_at)).toBeGreaterThan(Date.now());
    expect(await schedulesIn(id)).toBe(1);

    // Due now, the resumed agent runs (served by the cron backstop).
    await env.DB.prepare("UPDATE agents SET next_run_at = ? WHERE id = ?")
      .bind(Date.now() - 120_000, id)
      .run();
    await cronTick();
    expect(await runsOf(id)).toBe(1);
    await call(`/v1/agents/${id}`, { method: "DELETE", token: key });
  });
});
