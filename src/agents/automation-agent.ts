import { Agent } from "agents";
import { eq } from "drizzle-orm";
import type { Env } from "../env";
import { runtimeFor } from "../core/context";
import { agents } from "../db/schema";
import { nextCronInstant } from "../lib/cron-time";
import { serveDueRun } from "./firing";
import { loggableError } from "../lib/safe-log";
import { PollKeys } from "./poll-keys";
import { pollTriggerOf, runPoll } from "./polling";

import type { ScheduleConfig } from "../workflows/triggers";

export type { ScheduleConfig };

interface PollPayload {
  agentId: string;
}

interface FirePayload {
  agentId: string;
  /** For cron: the due instant this alarm was armed for (each alarm is armed once). */
  due?: number;
}

/**
 * One object per agent, on the Agents SDK: its schedule lives in the object's own storage and
 * wakes it through the SDK's alarms. Applying a schedule first cancels the previous one, and the
 * SDK's cron and interval schedules are idempotent, so restarts and repeated calls never add a
 * second schedule.
 */
// The SDK types `env` by the global Cloudflare.Env, which the tests widen; the hub's own Env is
// used through `hub` below.
export class AutomationAgent extends Agent<any> {
  private get hub(): Env {
    return this.env as Env;
  }

  /** Replaces the agent's schedule (null removes it); returns when it fires next. */
  async applySchedule(agentId: string, config: ScheduleConfig | null): Promise<{ next_run_at: string | null }> {
    // Cron runs as one alarm at a time, set for the next due instant in the schedule's time zone
    // (the SDK's own cron knows only UTC) and armed again after each fire. That instant is found
    // before anything is cancelled: an expression that never fires throws here and leaves the
    // current schedule as it was.
    const cronDue = config?.type === "cron" ? nextCronInstant(config.cron_expression, config.timezone, new Date()) : undefined;
    for (const existing of this.getSchedules()) if (existing.callback === "fire") await this.cancelSchedule(existing.id);
    if (!config) return { next_run_at: null };
    if (config.type === "interval") {
      const schedule = await this.scheduleEvery(config.interval_seconds, "fire", { agentId } satisfies FirePayload);
      return { next_run_at: "time" in schedule ? new Date(schedule.time * 1000).toISOString() : null };
    }
    await this.armCron(agentId, cronDue!);
    return { next_run_at: cronDue!.toISOString() };
  }

  private async armCron(agentId: string, due: Date) {
    await this.schedule(due, "fire", { agentId, due: due.getTime() } satisfies FirePayload, { idempotent: true });
  }

  /** The next time the current schedule fires, if any. */
  nextRun(): string | null {
    const next = this.getSchedules()
      .filter((s) => s.callback === "fire")
      .map((s) => ("time" in s ? s.time : Number.POSITIVE_INFINITY))
      .sort((a, b) => a - b)[0];
    return next && Number.isFinite(next) ? new Date(next * 1000).toISOString() : null;
  }

  /**
   * Called by the SDK when the schedule is due: serves the agent's due run (at most once per due
   * time, shared with the cron backstop) and returns whether this call started it.
   */
  async fire(payload: FirePayload): Promise<boolean> {
    // Each alarm is its own unit of work: it gets its own runtime.
    const runtime = runtimeFor(this.hub, { waitUntil: (work) => this.ctx.waitUntil(work) });
    const { db } = runtime;
    const agent = await db.select().from(agents).where(eq(agents.id, payload.agentId)).get();
    if (!agent) {
      // The agent was deleted: its schedule goes with it.
      for (const existing of this.getSchedules()) await this.cancelSchedule(existing.id);
      return false;
    }
    const served = await serveDueRun(runtime, agent, "alarm");
    // A cron alarm is one-off: arm the next one from the agent's (now advanced) due time.
    if (agent.schedule?.type === "cron" && agent.triggerType === "schedule") {
      const next = await db.select({ nextRunAt: agents.nextRunAt }).from(agents).where(eq(agents.id, agent.id)).get();
      if (next?.nextRunAt && next.nextRunAt.getTime() > Date.now()) await this.armCron(agent.id, next.nextRunAt);
    }
    return served;
  }

  private pollKeys?: PollKeys;
  /** A poll in progress in this instance: an alarm and the backstop never poll at the same time. */
  private polling = false;

  private get keys(): PollKeys {
    this.pollKeys ??= new PollKeys(this.ctx.storage.sql);
    return this.pollKeys;
  }

  /**
   * Arms polling (the first poll after `delaySeconds`), or disarms it (null). Disarming keeps the
   * remembered keys, so a resumed agent starts the items that arrived while it was paused;
   * `forget` drops them too (the agent is deleted, or its trigger is no longer a poll).
   */
  async armPoll(agentId: string, delaySeconds: number | null, forget = false): Promise<{ next_poll_at: string | null }> {
    for (const existing of this.getSchedules()) if (existing.callback === "poll") await this.cancelSchedule(existing.id);
    if (forget) this.keys.clear();
    return { next_poll_at: await this.schedulePoll(agentId, delaySeconds) };
  }

  private async schedulePoll(agentId: string, delaySeconds: number | null): Promise<string | null> {
    const nextPollAt = delaySeconds === null ? null : new Date(Date.now() + delaySeconds * 1000);
    if (delaySeconds !== null) await this.schedule(delaySeconds, "poll", { agentId } satisfies PollPayload);
    // Mirrored on the row: the API shows it, and the cron backstop finds polls that are overdue.
    const runtime = runtimeFor(this.hub, { waitUntil: (work) => this.ctx.waitUntil(work) });
    await runtime.db.update(agents).set({ nextPollAt }).where(eq(agents.id, agentId));
    return nextPollAt?.toISOString() ?? null;
  }

  /**
   * Called by the SDK when a poll is due: polls once (see `runPoll`) and arms the next one, after
   * the trigger's interval or a back-off. An agent that may no longer poll (paused, deleted, its
   * trigger changed) stops here.
   */
  async poll(payload: PollPayload, current?: { id: string }): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const runtime = runtimeFor(this.hub, { waitUntil: (work) => this.ctx.waitUntil(work) });
      const target = await pollTriggerOf(runtime, payload.agentId);
      let outcome: { delaySeconds: number | null };
      try {
        outcome = target ? await runPoll(runtime, target, this.keys) : { delaySeconds: null };
      } catch (error) {
        // Our own fault (storage unreachable, say): try again after the interval, never give up.
        console.error(JSON.stringify({ level: "error", message: "poll failed unexpectedly", agent_id: payload.agentId, error: loggableError(error) }));
        outcome = { delaySeconds: Math.max(60, target?.config.interval_seconds ?? 60) };
      }
      // Exactly one poll stays armed, whatever armed others meanwhile.
      for (const existing of this.getSchedules()) if (existing.callback === "poll" && existing.id !== current?.id) await this.cancelSchedule(existing.id);
      await this.schedulePoll(payload.agentId, outcome.delaySeconds);
    } finally {
      this.polling = false;
    }
  }

  /** The cron backstop: polls now if no poll is armed (or the armed one is long overdue). */
  async ensurePolling(agentId: string, overdueMs: number): Promise<boolean> {
    const armed = this.getSchedules().filter((s) => s.callback === "poll" && "time" in s);
    const due = Math.min(...armed.map((s) => ("time" in s ? s.time * 1000 : Number.POSITIVE_INFINITY)));
    if (armed.length > 0 && due > Date.now() - overdueMs) return false;
    await this.poll({ agentId });
    return true;
  }

  /** How many item keys the agent remembers (for tests). */
  rememberedKeys(): number {
    return this.keys.count();
  }
}
