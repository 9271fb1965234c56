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
