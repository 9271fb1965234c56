import { refusal } from "../agent-loop/loop";
import type { CallRunner, ToolOffer, ToolOutcome } from "../agent-loop/types";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { toolRefusal, type AgentModelSettings } from "../llm/agent-config";
import { rankTools } from "../llm/tool-ranking";
import type { ToolSpec } from "../llm/types";
import { executeTool } from "../tools/executor";
import type { ToolInfo } from "../tools/types";
import { type MemoryToolResult, type MemoryToolScope, isMemoryTool, memoryToolSpecs, runMemoryTool } from "../memories/tools";

/** A tool result longer than this is cut before the model sees it (the audit log keeps the call). */
const MAX_TOOL_RESULT_CHARS = 20_000;
/** Definitions one model request carries at most when the catalog is large (DESIGN §6.1). */
export const MAX_OFFERED = 16;
/** A catalog this small is offered whole. */
export const OFFER_ALL_UP_TO = 20;

const asSpec = (tool: ToolInfo): ToolSpec => ({ name: tool.name, description: tool.description || tool.title, inputSchema: tool.input_schema });

/**
 * The tools of one turn: which definitions each model request carries (a small catalog whole; a
 * large one as the tools the conversation used or found, newest first, then the best ranked for
 * the conversation so far), and how each call the model makes is run: through the hub's executor
 * (limits, audit, connection health), refused when the agent may not use the tool.
 */
export function turnTools(
  ctx: ServiceContext,
  input: {
    catalog: ToolInfo[];
    agent: AgentModelSettings;
    conversationText: string;
    usedOrFound: string[];
    source: string;
    /** The agent whose memory tools every request carries besides the catalog (agent_config.memory). */
    memory?: MemoryToolScope;
  },
): { offer: ToolOffer; run: CallRunner } {
  const memorySpecs = input.memory ? memoryToolSpecs() : [];
  const available = input.catalog.filter((tool) => tool.available);
  const byName = new Map(available.map((tool) => [tool.name, tool]));
  const recent = [...input.usedOrFound];
  const ranked = rankTools(input.conversationText, available, MAX_OFFERED).map((r) => r.tool);

  const offer: ToolOffer = {
    next() {
      return [...memorySpecs, ...catalogOffer(MAX_OFFERED - memorySpecs.length)];
    },
    note(names) {
      for (const name of names) {
        const at = recent.indexOf(name);
        if (at >= 0) recent.splice(at, 1);
        recent.unshift(name);
      }
    },
  };

  function catalogOffer(room: number): ToolSpec[] {
    if (available.length <= OFFER_ALL_UP_TO) return available.map(asSpec);
    const chosen: ToolInfo[] = [];
    const builtins = available.filter((tool) => tool.source === "builtin").map((t) => t.name);
    for (const name of [...recent, ...ranked.map((t) => t.name), ...builtins]) {
      const tool = byName.get(name);
      if (tool && !chosen.includes(tool)) chosen.push(tool);
      if (chosen.length >= room) break;
    }
    return chosen.map(asSpec);
  }

  const run: CallRunner = async (call, hooks) => {
    if (input.memory && isMemoryTool(call.name)) return memoryOutcome(await runMemoryTool(ctx, input.memory, call.name, call.arguments));
    // A tool the agent may not use is never run; the model hears why, as for any refused call.
    const refused = toolRefusal(input.agent, call.name);
    if (refused) return refusal(refused);
    try {
      const result = await executeTool(ctx, call.name, call.arguments, { source: input.source, onProgress: hooks.onProgress, signal: hooks.signal });
      return {
        content: result.success ? truncate(JSON.stringify(result.result)) : `Error: ${result.error_message}`,
        success: result.success,
        error_message: result.error_message,
        duration_ms: result.duration_ms,
        call_id: result.call_id,
      } satisfies ToolOutcome;
    } catch (error) {
      // Refused before running (unknown tool, bad arguments, limits): the model hears why and may recover.
      return refusal(error instanceof HubError ? error.message + (error.errors ? ` ${JSON.stringify(error.errors)}` : "") : "The tool could not be run.");
    }
  };
  return { offer, run };
}

const truncate = (text: string) => (text.length > MAX_TOOL_RESULT_CHARS ? `${text.slice(0, MAX_TOOL_RESULT_CHARS)}… (truncated)` : text);

function memoryOutcome(result: MemoryToolResult): ToolOutcome {
  return result.success
    ? { content: JSON.stringify(result.result), success: true, error_message: null, duration_ms: 0, call_id: null }
    : refusal(result.error_message);
}
