import { getAgentByName } from "agents";
import type { Env } from "../env";
import type { AutomationAgent, ScheduleConfig } from "./automation-agent";

/** The agent's Durable Object, addressed by the agent's id. */
export function agentObject(env: Env, agentId: string): Promise<DurableObjectStub<AutomationAgent>> {
  return getAgentByName<any, AutomationAgent>(env.AGENTS as unknown as DurableObjectNamespace<AutomationAgent>, agentId);
}

export async function applySchedule(env: Env, agentId: string, config: ScheduleConfig | null): Promise<string | null> {
  const stub = await agentObject(env, agentId);
  const { next_run_at } = await stub.applySchedule(agentId, config);
  return next_run_at;
}
