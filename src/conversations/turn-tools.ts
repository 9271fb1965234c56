import { refusal } from "../agent-loop/loop";
import type { CallRunner, ToolOffer, ToolOutcome } from "../agent-loop/types";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { toolRefusal, type AgentModelSettings } from "../llm/agent-config";
import type { ChatMessage } from "../llm/types";
import { SEARCH_TOOLS, catalogToolChoice, conversationSoFar, usedOrFound } from "../agent-loop/tools";
import { executeTool } from "../tools/executor";
import type { ToolInfo } from "../tools/types";
import { type MemoryToolResult, type MemoryToolScope, isMemoryTool, memoryToolSpecs, runMemoryTool } from "../memories/tools";

/** A tool result longer than this is cut before the model sees it (the audit log keeps the call). */
const MAX_TOOL_RESULT_CHARS = 20_000;

/**
 * The tools of one turn: which definitions each model request carries (src/agent-loop/tools/: a
 * small catalog whole; a large one as search_tools, the tools the conversation used or found,
 * newest first, then the best ranked for the conversation so far), and how each call the model
 * makes is run: search_tools over the turn's catalog, the agent's memory tools, and every other
 * tool through the hub's executor (limits, audit, connection health), refused when the agent may
 * not use it.
 */
export function turnTools(
  ctx: ServiceContext,
  input: {
    catalog: ToolInfo[];
    agent: AgentModelSettings;
    /** The history the turn replays (its newest user messages and answer rank the catalog). */
    history: ChatMessage[];
    source: string;
    /** The agent whose memory tools every request carries besides the catalog (agent_config.memory). */
    memory?: MemoryToolScope;
  },
): { offer: ToolOffer; run: CallRunner } {
  const choice = catalogToolChoice({
    catalog: input.catalog,
    conversation: conversationSoFar(input.history),
    usedOrFound: usedOrFound(input.history),
    extra: input.memory ? memoryToolSpecs() : [],
  });

  const run: CallRunner = async (call, hooks) => {
    if (call.name === SEARCH_TOOLS) return choice.search(call.arguments);
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
  return { offer: choice.offer, run };
}

const truncate = (text: string) => (text.length > MAX_TOOL_RESULT_CHARS ? `${text.slice(0, MAX_TOOL_RESULT_CHARS)}… (truncated)` : text);

function memoryOutcome(result: MemoryToolResult): ToolOutcome {
  return result.success
    ? { content: JSON.stringify(result.result), success: true, error_message: null, duration_ms: 0, call_id: null }
    : refusal(result.error_message);
}
