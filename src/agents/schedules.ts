import { getAgentByName } from "agents";
import type { Bindings } from "../core/context";
import type { AutomationAgent, ScheduleConfig } from "./automation-agent";

/** The agent's Durable Object, addressed by the agent's id. */
export function agentObject(bindings: Pick<Bindings, "AGENTS">, agentId: string): Promise<DurableObjectStub<AutomationAgent>> {
  return getAgentByName<any, AutomationAgent>(bindings.AGENTS as unknown as DurableObjectNamespace<AutomationAgent>, agentId);
}

/** Replaces the schedule kept by the agent's object (null removes it); returns the next due time. */
export async function applySchedule(bindings: Pick<Bindings, "AGENTS">, agentId: string, config: ScheduleConfig | null): Promise<string | null> {
  const stub = await agentObject(bindings, agentId);
  const { next_run_at } = await stub.applySchedule(agentId, config);
  return next_run_at;
}

/**
 * Arms the agent's polling (first poll after `delaySeconds`) or disarms it (null; `forget` also
 * drops the keys it remembers). Returns when it polls next.
 */
export async function applyPoll(bindings: Pick<Bindings, "AGENTS">, agentId: string, delaySeconds: number | null, forget = false): Promise<string | null> {
  const stub = await agentObject(bindings, agentId);
  const { next_poll_at } = await stub.armPoll(agentId, delaySeconds, forget);
  return next_poll_at;
}
