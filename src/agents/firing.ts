import { nextCronInstant } from "../lib/cron-time";
import { and, eq, isNotNull, lt } from "drizzle-orm";
import type { Runtime } from "../core/context";
import { agentFires, agents, type Agent } from "../db/schema";
import { startExecution } from "../executions/start-and-run";
import { StartSkipped } from "../executions/flow-control";
import { getOwnedWorkflow } from "../workflows/service";
import { HubError } from "../core/errors";
import { recordAgentEvent } from "./events";
import { agentContext, agentStoppedReason, recordAgentRefusal } from "./service";

/** How late a scheduled run may be before the cron backstop serves it instead. */
export const BACKSTOP_GRACE_MS = 90_000;
/** A fire this early is still its due time's (alarms may run a moment early). */
const EARLY_TOLERANCE_MS = 2_000;

/** The first due time after `after`, per the agent's schedule. */
export function nextDueAfter(schedule: Record<string, unknown>, lastDue: Date, after: Date): Date | null {
  if (schedule.type === "interval") {
    const step = Number(schedule.interval_seconds) * 1000;
    const missed = Math.max(1, Math.ceil((after.getTime() - lastDue.getTime() + 1) / step));
    return new Date(lastDue.getTime() + missed * step);
  }
  if (schedule.type === "cron") return nextCronInstant(String(schedule.cron_expression), String(schedule.timezone ?? "UTC"), after);
  return null;
}

/**
 * Serves the agent's due run, if it is due: the due time (`next_run_at`) is claimed as a dedup key
 * first, so the agent's alarm, a duplicated alarm and the cron backstop can all try and exactly one
 * run starts. Then `next_run_at` moves to the next due time.
 */
export async function serveDueRun(runtime: Runtime, agent: Agent, source: "alarm" | "backstop", now = Date.now()): Promise<boolean> {
  if (!agent.schedule || !agent.nextRunAt || agent.nextRunAt.getTime() > now + EARLY_TOLERANCE_MS) return false;
  const due = agent.nextRunAt;
  const { db } = runtime;
  const claimed = await db
    .insert(agentFires)
    .values({ agentId: agent.id, dueAt: due.getTime(), source })
    .onConflictDoNothing()
    .returning({ dueAt: agentFires.dueAt });
  const next = nextDueAfter(agent.schedule, due, new Date(now));
  await db
    .update(agents)
    .set({ nextRunAt: next, updatedAt: new Date() })
    .where(and(eq(agents.id, agent.id), eq(agents.nextRunAt, due)));
  if (claimed.length === 0 || agent.status !== "active") return false;
  const stopped = await agentStoppedReason(db, agent);
  if (stopped) {
    await recordAgentRefusal(db, agent.id, stopped);
    return false;
  }
  const ctx = agentContext(runtime, agent);
  const workflow = await getOwnedWorkflow(ctx, agent.workflowId);
  const event = { agentId: agent.id, source: "schedule" as const, eventId: due.toISOString() };
  try {
    const execution = await startExecution(ctx, workflow, {
      input: { trigger: "schedule", due_at: due.toISOString(), fired_by: source },
      agentId: agent.id,
      trigger: "schedule",
    });
    await recordAgentEvent(db, { ...event, outcome: "started", executionId: execution.id });
  } catch (error) {
    // Skipped by the workflow's rate_limit: the events log says so already.
    if (error instanceof StartSkipped) return false;
    // A paused workflow or a full quota skips this due time; the owner sees why.
    if (!(error instanceof HubError)) throw error;
    const detail = `The run due at ${due.toISOString()} did not start: ${error.message}`;
    await Promise.all([recordAgentRefusal(db, agent.id, detail), recordAgentEvent(db, { ...event, outcome: "error", detail })]);
    return false;
  }
  return true;
}

/** Cron backstop: scheduled agents more than the grace period past due are served here. */
export async function sweepOverdueAgents(runtime: Runtime, now = Date.now()): Promise<number> {
  const { db } = runtime;
  const overdue = await db
    .select()
    .from(agents)
    .where(and(eq(agents.triggerType, "schedule"), isNotNull(agents.nextRunAt), lt(agents.nextRunAt, new Date(now - BACKSTOP_GRACE_MS))))
    .limit(200)
    .all();
  let served = 0;
  for (const agent of overdue) if (await serveDueRun(runtime, agent, "backstop", now)) served++;
  // Fire records only matter while their due time could still be served.
  await db.delete(agentFires).where(lt(agentFires.firedAt, new Date(now - 24 * 3600 * 1000)));
  return served;
}
