import { getOwnedAgent } from "../../agents/service";
import type { ServiceContext } from "../../core/context";
import { getOwnedWorkflow } from "../../workflows/service";
import type { AgentView } from "./agent-page";

/** A poll trigger's settings as the trigger panel shows them (never its arguments, which may hold a key). */
export interface PollSettings {
  tool: string;
  intervalSeconds: number | null;
  itemsPath: string;
  idPath: string;
  emit: "each" | "batch";
  emitExisting: boolean;
}

/** What the trigger panel needs beyond the agent as the API presents it. */
export interface TriggerDetails {
  /** A provider scheme (or `token`): whether a signing secret is set; undefined for `hub` and non-webhook triggers. */
  signingSecretSet?: boolean;
  poll?: PollSettings;
}

/**
 * The agent's `trigger` (from presentAgent) names the scheme but not the poll's settings, nor
 * whether a provider's signing secret is set (saying "set" leaks nothing: the secret stays
 * sealed). Each is read only for the trigger type that has it, through the owner-checked services.
 */
export async function triggerDetailsOf(ctx: ServiceContext, agent: AgentView): Promise<TriggerDetails> {
  const { trigger } = agent;
  if (trigger.type === "webhook" && trigger.verify !== "hub") {
    const row = await getOwnedAgent(ctx, agent.agent_id);
    return { signingSecretSet: row.providerSecret !== null };
  }
  if (trigger.type === "poll") {
    const workflow = await getOwnedWorkflow(ctx, agent.workflow_id);
    return { poll: pollSettingsOf(workflow.triggerConfig) };
  }
  return {};
}

/** Read defensively: older rows may predate a field, and the page must still render. */
function pollSettingsOf(config: Record<string, unknown>): PollSettings {
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  return {
    tool: text(config.tool),
    intervalSeconds: typeof config.interval_seconds === "number" ? config.interval_seconds : null,
    itemsPath: text(config.items_path),
    idPath: text(config.id_path),
    emit: config.emit === "batch" ? "batch" : "each",
    emitExisting: config.emit_existing === true,
  };
}
