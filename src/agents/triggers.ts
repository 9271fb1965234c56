import { and, eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { ServiceContext } from "../core/context";
import { agents, type Agent, type Workflow } from "../db/schema";
import { notFound } from "../core/errors";
import { type ScheduleConfig, scheduleOf } from "../workflows/triggers";
import { applyPoll, applySchedule } from "./schedules";

/**
 * Sets the agent's schedule (null: none) and arms it in the agent's Durable Object, as its status
 * allows: a paused agent keeps the schedule on its row but nothing is armed (no `next_run_at`),
 * so neither its alarm nor the cron backstop fires it until it is resumed. `record` (the audit
 * trail's record of a schedule set by hand) goes in the same batch as the row's update.
 */
export async function armSchedule(
  ctx: ServiceContext,
  agent: Agent,
  schedule: ScheduleConfig | null,
  triggerType: string,
  record?: BatchItem<"sqlite">,
): Promise<Agent> {
  const nextRunAt = await applySchedule(ctx.bindings, agent.id, schedule && agent.status === "active" ? schedule : null);
  const update = ctx.db
    .update(agents)
    .set({ triggerType, schedule, nextRunAt: nextRunAt ? new Date(nextRunAt) : null, updatedAt: new Date() })
    .where(eq(agents.id, agent.id))
    .returning();
  const [row] = record ? (await ctx.db.batch([update, record]))[0] : await update;
  if (!row) throw notFound("Agent");
  return row;
}

/**
 * Arms or disarms the agent's polling as its workflow's trigger and its status say: a `poll`
 * trigger on an active agent polls (the first poll right away: it sets the baseline), anything
 * else does not. `forget` drops the remembered keys (the trigger is no longer a poll).
 */
export async function armPolling(ctx: ServiceContext, agent: Agent, workflow: Workflow): Promise<Agent> {
  const polls = workflow.triggerType === "poll";
  if (!polls && !agent.nextPollAt) return agent;
  const nextPollAt = await applyPoll(ctx.bindings, agent.id, polls && agent.status === "active" ? 0 : null, !polls);
  return { ...agent, nextPollAt: nextPollAt ? new Date(nextPollAt) : null };
}

/** Arms a newly deployed agent's trigger from its workflow's (a `schedule` trigger: its schedule; `poll`: polling). */
export async function armDeployedAgent(ctx: ServiceContext, agent: Agent, workflow: Workflow): Promise<Agent> {
  const schedule = scheduleOf(workflow.triggerType, workflow.triggerConfig);
  const armed = schedule ? await armSchedule(ctx, agent, schedule, "schedule") : agent;
  return workflow.triggerType === "poll" ? armPolling(ctx, armed, workflow) : armed;
}

/**
 * Re-arms every agent of a workflow whose trigger changed: a `schedule` trigger sets (or replaces)
 * each agent's schedule, any other type clears it, overriding a schedule set by hand; a `poll`
 * trigger (re)starts polling, any other type stops it.
 */
export async function rearmWorkflowAgents(ctx: ServiceContext, workflow: Workflow): Promise<void> {
  const held = await ctx.db
    .select()
    .from(agents)
    .where(and(eq(agents.workflowId, workflow.id), eq(agents.userId, ctx.workspace.id)))
    .all();
  const schedule = scheduleOf(workflow.triggerType, workflow.triggerConfig);
  for (const agent of held) await armPolling(ctx, await armSchedule(ctx, agent, schedule, workflow.triggerType), workflow);
}

/** The agent's trigger as the API shows it (never a secret); `origin` makes the webhook address absolute. */
export function presentTrigger(agent: Agent, triggerConfig: Record<string, unknown>, origin: string) {
  const type = agent.triggerType;
  const config = type === "webhook" || type === "poll" ? triggerConfig : {};
  const interval = type === "poll" ? config.interval_seconds : agent.schedule?.type === "interval" ? agent.schedule.interval_seconds : undefined;
  return {
    type,
    ...(type === "webhook"
      ? {
          verify: typeof config.verify === "string" ? config.verify : "hub",
          ...(Array.isArray(config.event_types) ? { event_types: config.event_types.map(String) } : {}),
          webhook_url: `${origin}/v1/hooks/agents/${agent.id}`,
        }
      : {}),
    ...(typeof interval === "number" ? { interval_seconds: interval } : {}),
    last_event_at: agent.lastEventAt?.toISOString() ?? null,
    ...(type === "poll" ? { next_poll_at: agent.nextPollAt?.toISOString() ?? null } : {}),
  };
}
