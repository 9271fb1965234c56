import { and, isNotNull, lt } from "drizzle-orm";
import type { Runtime } from "../core/context";
import { agents } from "../db/schema";
import { loggableError } from "../lib/safe-log";
import { agentObject } from "./schedules";

/** How late a poll may be before the cron backstop wakes the agent's object. */
export const POLL_GRACE_MS = 90_000;

/**
 * Cron backstop: an agent whose poll is more than the grace period overdue (its object's alarm
 * was lost, say, with the process that held it) is asked to poll now. Polling is idempotent per
 * item, so a poll the alarm also makes starts nothing twice.
 */
export async function sweepOverduePolls(runtime: Runtime, now = Date.now()): Promise<number> {
  const overdue = await runtime.db
    .select({ id: agents.id })
    .from(agents)
    .where(and(isNotNull(agents.nextPollAt), lt(agents.nextPollAt, new Date(now - POLL_GRACE_MS))))
    .limit(100)
    .all();
  let woken = 0;
  for (const { id } of overdue) {
    try {
      const stub = await agentObject(runtime.bindings, id);
      if (await stub.ensurePolling(id, POLL_GRACE_MS)) woken++;
    } catch (error) {
      console.error(JSON.stringify({ level: "error", message: "could not wake a polling agent", agent_id: id, error: loggableError(error) }));
    }
  }
  return woken;
}
