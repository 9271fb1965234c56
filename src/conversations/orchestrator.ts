import { compactionCut, summarise, summaryMessage } from "../agent-loop/compaction";
import { runAgentLoop } from "../agent-loop/loop";
import type { LoopCall, ToolOutcome } from "../agent-loop/types";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { providerSetupAhead, resolveProvider } from "../llm/providers";
import { ProviderError, type ChatProvider } from "../llm/types";
import { catalogFor } from "../tools/catalog-service";
import type { ProgressUpdate } from "../tools/types";
import { loggableError } from "../lib/safe-log";
import { recallForPrompt } from "../memories/recall";
import { agentCatalog, agentProviderChoice, agentSystemPrompt, conversationAgent, type ConversationAgent } from "./agent-settings";
import { toChatHistory } from "./history";
import type { MessageRecord, MessageStore, NewMessage, ToolCallRecord } from "./messages";
import { turnTools } from "./turn-tools";

/** Messages a turn replays at most (before compaction looks at their size). */
const MAX_HISTORY_MESSAGES = 200;
/** A whole turn's deadline; each model call has its own (MODEL_CALL_TIMEOUT_SECONDS, in resolveProvider). */
const TURN_MS = 5 * 60_000;

export const SYSTEM_PROMPT = [
  "You are the Agent Automation Hub assistant. You help people automate marketing and operations work by calling the tools you are given.",
  "Call a tool when it can do what the user asks; ask for missing details instead of guessing them. Tools that do not depend on each other can be called together in one answer. After tools run, answer briefly in Markdown with what was done and the key results.",
].join(" ");

export interface TurnInput {
  conversationId: number;
  userId: number;
  credentialId: string;
  content: string;
  provider: string | null;
}

export interface TurnEvents {
  message(record: MessageRecord): void;
  toolProgress(event: { tool_call_id: string; name: string; progress: ProgressUpdate }): void;
  toolStarted(event: { tool_call_id: string; name: string; arguments: Record<string, unknown> }): void;
  toolFinished?(event: { tool_call_id: string; name: string; success: boolean; duration_ms: number }): void;
  delta?(event: { round: number; text: string }): void;
  /** A tool call that finished, as its answer will record it (its result is stored already). */
  callRecorded?(call: ToolCallRecord): void;
}

/**
 * One conversation turn, driving the agent loop (src/agent-loop/): store the user's message,
 * replay the history (compacted into a summary when it passes the agent's context_chars), let the
 * loop ask the model and run its tool calls, store each tool result as it ends and the answer at
 * the end. Failures end as an assistant message with status `error`; a stop as one with status
 * `stopped` and the text produced so far; the user's message is always kept.
 */
export async function runTurn(
  ctx: ServiceContext,
  store: MessageStore,
  input: TurnInput,
  events: TurnEvents,
  stop: AbortSignal = new AbortController().signal,
): Promise<MessageRecord> {
  const userMessage = store.add(input.conversationId, message("user", input.content, { status: "received" }));
  events.message(userMessage);

  let provider: ChatProvider | undefined;
  // The loop records each call here as it ends, so a turn that fails later still stores them.
  const calls: LoopCall[] = [];
  const deadline = AbortSignal.timeout(TURN_MS);
  let tokens = 0;
  try {
    // Read together: the catalog does not depend on the agent, and the first token waits for all of it.
    const catalog = catalogFor(ctx);
    catalog.catch(() => undefined);
    const setup = providerSetupAhead(ctx);
    // A conversation of an agent answers as that agent: its instructions, model, tools and settings.
    const agent = await conversationAgent(ctx, input.conversationId);
    const choice = agentProviderChoice(input.provider, agent.settings);
    provider = await resolveProvider(ctx, choice.provider, choice.model, setup);
    // The agent's memories that best match the new message go in this turn's system prompt.
    const recall = agent.memory && agent.agentId ? recallForPrompt(ctx, agent.agentId, input.content) : Promise.resolve("");
    const replayed = await replayHistory(store, input.conversationId, agent, provider, AbortSignal.any([stop, deadline]));
    tokens += replayed.tokens;
    if (replayed.summary) events.message(replayed.summary);

    const tools = turnTools(ctx, {
      catalog: agentCatalog(await catalog, agent.settings),
      agent: agent.settings,
      history: replayed.history,
      source: `conversation:${input.conversationId}`,
      memory: agent.memory && agent.agentId ? { agentId: agent.agentId, conversationId: input.conversationId } : undefined,
    });
    const system = [agentSystemPrompt(SYSTEM_PROMPT, agent.settings), await recall].filter(Boolean).join("\n\n");
    const outcome = await runAgentLoop(
      {
        provider,
        messages: [{ role: "system", content: system }, ...replayed.history],
        offer: tools.offer,
        run: tools.run,
        maxSteps: agent.loop.maxSteps,
        maxParallel: ctx.config.limits.parallelToolCalls,
        stop,
        deadline,
        calls,
      },
      {
        delta: (round, text) => events.delta?.({ round, text }),
        toolStarted: events.toolStarted,
        toolProgress: events.toolProgress,
        toolEnded: (call, result) =>
          events.toolFinished?.({ tool_call_id: call.id, name: call.name, success: result.success, duration_ms: result.duration_ms }),
        toolFinished: (call, result) => storeToolResult(store, events, input.conversationId, call, result),
      },
    );
    tokens += outcome.usage.inputTokens + outcome.usage.outputTokens;
    const status = outcome.status === "stopped" ? "stopped" : "completed";
    const content = outcome.status === "completed" ? outcome.text || "(no answer)" : outcome.text;
    return finish(
      store,
      events,
      input,
      message("assistant", content, { status, tokens_used: tokens, tools_called: recorded(calls), provider: provider.id, model: outcome.model }),
    );
  } catch (error) {
    // A stop that lands outside a model request (while compacting, say) is still a stop.
    if (stop.aborted)
      return finish(
        store,
        events,
        input,
        message("assistant", "", { status: "stopped", tokens_used: tokens, tools_called: recorded(calls), provider: provider?.id ?? input.provider }),
      );
    const known = error instanceof ProviderError || error instanceof HubError;
    const detail = known
      ? error.message
      : deadline.aborted
        ? `The turn ran past its deadline of ${TURN_MS / 60_000} minutes.`
        : "The assistant failed unexpectedly.";
    if (!known && !deadline.aborted) {
      console.error(
        JSON.stringify({ level: "error", message: "conversation turn failed", conversation_id: input.conversationId, error: loggableError(error) }),
      );
    }
    return finish(
      store,
      events,
      input,
      message("assistant", "", {
        status: "error",
        error_message: detail,
        tokens_used: tokens,
        tools_called: recorded(calls),
        provider: provider?.id ?? input.provider,
      }),
    );
  }
}

/**
 * The history the turn replays: the newest summary and what came after it. When that passes the
 * agent's context_chars, the older part (with the old summary) is summarised by the same provider
 * into a new summary message, cut only before a user message so a tool result always stays with
 * the call that asked for it.
 */
async function replayHistory(store: MessageStore, conversationId: number, agent: ConversationAgent, provider: ChatProvider, signal: AbortSignal) {
  const { summary, messages: records } = store.replay(conversationId, MAX_HISTORY_MESSAGES);
  const history = toChatHistory(records);
  const withSummary = summary ? [summaryMessage(summary.content), ...history] : history;
  const cut = compactionCut(withSummary, agent.loop.contextChars);
  if (cut === null) return { history: withSummary, records, summary: null, tokens: 0 };
  const written = await summarise(provider, withSummary.slice(0, cut), signal);
  // The records the kept part starts at: the cut is before a user message, found again by count.
  const keptUsers = withSummary.slice(cut).filter((m) => m.role === "user").length;
  const userRecords = records.filter((r) => r.role === "user");
  const firstKept = userRecords[userRecords.length - keptUsers]!;
  const coversThrough = records[records.indexOf(firstKept) - 1]?.id ?? firstKept.id - 1;
  const stored = store.addSummary(conversationId, written.text, coversThrough);
  const kept = records.slice(records.indexOf(firstKept));
  return { history: [summaryMessage(written.text), ...toChatHistory(kept)], records: kept, summary: stored, tokens: written.tokens };
}

function storeToolResult(store: MessageStore, events: TurnEvents, conversationId: number, call: LoopCall, result: ToolOutcome) {
  const stored = store.add(
    conversationId,
    message("tool", result.content, { status: result.success ? "completed" : "error", tool_call_id: call.id, error_message: result.error_message }),
  );
  events.message(stored);
  events.callRecorded?.(recorded([call])[0]!);
}

const recorded = (calls: LoopCall[]): ToolCallRecord[] =>
  calls.map((c) => ({
    id: c.id,
    name: c.name,
    arguments: c.arguments,
    round: c.round,
    success: c.success,
    error_message: c.error_message,
    duration_ms: c.duration_ms,
    call_id: c.call_id,
  }));

function finish(store: MessageStore, events: TurnEvents, input: TurnInput, record: NewMessage): MessageRecord {
  const stored = store.add(input.conversationId, record);
  events.message(stored);
  return stored;
}

function message(
  role: MessageRecord["role"],
  content: string,
  fields: Partial<Omit<MessageRecord, "id" | "conversation_id" | "created_at" | "role" | "content">>,
): NewMessage {
  return {
    role,
    content,
    status: fields.status ?? "completed",
    tokens_used: fields.tokens_used ?? 0,
    tools_called: fields.tools_called ?? [],
    tool_call_id: fields.tool_call_id ?? null,
    error_message: fields.error_message ?? null,
    provider: fields.provider ?? null,
    model: fields.model ?? null,
  };
}
