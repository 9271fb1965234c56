import { refusal } from "../agent-loop/loop";
import type { CallRunner, ToolOffer, ToolOutcome } from "../agent-loop/types";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { toolRefusal, type AgentModelSettings } from "../llm/agent-config";
import type { ChatMessage, ToolCallRequest } from "../llm/types";
import { SEARCH_TOOLS, catalogToolChoice, conversationSoFar, usedOrFound } from "../agent-loop/tools";
import { executeTool, type ExecutionHooks } from "../tools/executor";
import type { ToolInfo } from "../tools/types";
import { type MemoryToolResult, type MemoryToolScope, isMemoryTool, memoryToolSpecs, runMemoryTool } from "../memories/tools";
import { type CallGate, callGate, type GateScope } from "./call-gate";
import type { ApprovalView } from "../approvals/present";

/** A tool result longer than this is cut before the model sees it (the audit log keeps the call). */
const MAX_TOOL_RESULT_CHARS = 20_000;

export interface TurnTools {
  /** Which definitions each model request carries, ranked for the history the turn replays. */
  offer(history: ChatMessage[]): ToolOffer;
  run: CallRunner;
  /** Runs a call a person decided: approved with its final arguments, otherwise told to the model why not. */
  runApproved(call: ToolCallRequest, approval: ApprovalView): Promise<ToolOutcome>;
}

/**
 * The tools of one turn: which definitions each model request carries (src/agent-loop/tools/: a
 * small catalog whole; a large one as search_tools, the tools the conversation used or found,
 * newest first, then the best ranked for the conversation so far), and how each call the model
 * makes is run: search_tools over the turn's catalog, the agent's memory tools, and every other
 * tool through the policies (run, refused, or held for a person: ./call-gate.ts) and then the
 * hub's executor (limits, audit, connection health), refused when the agent may not use it.
 */
export function turnTools(
  ctx: ServiceContext,
  input: {
    catalog: ToolInfo[];
    agent: AgentModelSettings;
    source: string;
    /** The agent whose memory tools every request carries besides the catalog (agent_config.memory). */
    memory?: MemoryToolScope;
    /** Where approvals the policies ask for belong, and who hears of them. */
    approvals: GateScope;
    /** The idempotency key of a catalog call (a run's `<execution>:<step>:<n>`), so a repeat after a crash is recognised. */
    keyOf?: (call: ToolCallRequest) => string | undefined;
  },
): TurnTools {
  let search: ((args: Record<string, unknown>) => ToolOutcome) | undefined;
  const gate: CallGate = callGate(ctx, input.catalog, input.approvals);
  const execute = (name: string, args: Record<string, unknown>, hooks: Pick<ExecutionHooks, "onProgress" | "signal" | "idempotencyKey">) =>
    runCatalogTool(ctx, name, args, { source: input.source, ...hooks });

  const run: CallRunner = async (call, hooks) => {
    if (call.name === SEARCH_TOOLS && search) return search(call.arguments);
    if (input.memory && isMemoryTool(call.name)) return memoryOutcome(await runMemoryTool(ctx, input.memory, call.name, call.arguments));
    // A tool the agent may not use is never run; the model hears why, as for any refused call.
    const refused = toolRefusal(input.agent, call.name);
    if (refused) return refusal(refused);
    const verdict = await gate.check(call);
    if (verdict.kind === "deny") return refusal(verdict.reason);
    if (verdict.kind === "ask") return { ...refusal("Waiting for a person to approve this call."), awaiting_approval: verdict.approval.id };
    return execute(call.name, call.arguments, { ...hooks, idempotencyKey: input.keyOf?.(call) });
  };

  return {
    offer(history) {
      const choice = catalogToolChoice({
        catalog: input.catalog,
        conversation: conversationSoFar(history),
        usedOrFound: usedOrFound(history),
        extra: input.memory ? memoryToolSpecs() : [],
      });
      search = choice.search;
      return choice.offer;
    },
    run,
    async runApproved(call, approval) {
      if (approval.status === "approved")
        return execute(call.name, call.arguments, { signal: AbortSignal.timeout(120_000), idempotencyKey: input.keyOf?.(call) ?? approval.id });
      if (approval.status === "expired") return refusal("Not run: the approval expired before anyone decided.");
      return refusal(`Denied by a person${approval.note ? `: ${approval.note}` : "."}`);
    },
  };
}

/** A catalog tool through the hub's executor, as the model hears it; never throws. */
async function runCatalogTool(ctx: ServiceContext, name: string, args: Record<string, unknown>, hooks: ExecutionHooks): Promise<ToolOutcome> {
  try {
    const result = await executeTool(ctx, name, args, hooks);
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
}

const truncate = (text: string) => (text.length > MAX_TOOL_RESULT_CHARS ? `${text.slice(0, MAX_TOOL_RESULT_CHARS)}… (truncated)` : text);

function memoryOutcome(result: MemoryToolResult): ToolOutcome {
  return result.success
    ? { content: JSON.stringify(result.result), success: true, error_message: null, duration_ms: 0, call_id: null }
    : refusal(result.error_message);
}
