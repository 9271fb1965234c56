import { and, eq } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { agents } from "../db/schema";

/**
 * What an agent's `agent_config` sets for its model calls (DESIGN §5): its `llm` steps and the
 * chat turns of its conversations. `tools`, when given, is the only tools a model may call for
 * the agent; absent, every tool of the owner's catalog may be.
 */
export interface AgentModelSettings {
  instructions?: string;
  provider?: string;
  model?: string;
  tools?: string[];
  /** agent_config.memory: the agent's turns and `agent` steps get memory_save and memory_search (src/memories/). */
  memory?: boolean;
}

/** The settings a stored `agent_config` holds; anything else in it (notes, a description) is not read. */
export function agentSettingsOf(config: Record<string, unknown> | null | undefined): AgentModelSettings {
  const text = (value: unknown) => (typeof value === "string" && value.trim() ? value : undefined);
  const tools = Array.isArray(config?.tools) ? config.tools.filter((name): name is string => typeof name === "string") : undefined;
  // Only `true` turns memory on: a stored "yes" or 1 (agent_config keeps unknown keys) does not.
  const memory = config?.memory === true ? true : undefined;
  return { instructions: text(config?.instructions), provider: text(config?.provider), model: text(config?.model), tools, memory };
}

/** The settings of one of the caller's agents; none for no agent (or one that is gone). */
export async function agentModelSettings(ctx: ServiceContext, agentId: string | null): Promise<AgentModelSettings> {
  if (!agentId) return {};
  const row = await ctx.db
    .select({ config: agents.config })
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.userId, ctx.workspace.id)))
    .get();
  return agentSettingsOf(row?.config);
}

/** Why the agent may not call `tool`, or undefined when it may (a refusal the model is told). */
export function toolRefusal(settings: AgentModelSettings, tool: string): string | undefined {
  if (!settings.tools || settings.tools.includes(tool)) return undefined;
  // Named so the model can pick an allowed one; a long list is cut (it is also what the model was offered).
  const listed = settings.tools.slice(0, 20).join(", ") + (settings.tools.length > 20 ? ", …" : "");
  return `The tool "${tool.slice(0, 200)}" is not one this agent may use (its agent_config.tools lists ${listed || "none"}).`;
}
