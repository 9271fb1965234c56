import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { type AgentModelSettings, toolRefusal } from "../llm/agent-config";
import { resolveProvider } from "../llm/providers";
import { rankTools } from "../llm/tool-ranking";
import { ProviderError, type ChatMessage, type ChatProvider, type ToolSpec } from "../llm/types";
import { catalogFor } from "../tools/catalog-service";
import { executeTool } from "../tools/executor";
import type { ProgressUpdate, ToolInfo } from "../tools/types";
import { agentCatalog, agentProviderChoice, agentSystemPrompt, conversationAgentSettings } from "./agent-settings";
import { toChatHistory } from "./history";
import type { MessageRecord, MessageStore, ToolCallRecord } from "./messages";
import { loggableError } from "../lib/safe-log";

/** Bounds on one turn: model rounds, tool calls per round, tools offered, history replayed. */
export const MAX_ROUNDS = 5;
export const MAX_CALLS_PER_ROUND = 5;
export const MAX_TOOLS_OFFERED = 12;
const MAX_HISTORY_MESSAGES = 60;
const MAX_TOOL_RESULT_CHARS = 20_000;
/** The replayed history is cut to this many characters, oldest first (the new message always stays). */
const MAX_HISTORY_CHARS = 120_000;
/** A whole turn's deadline; each model call has its own (MODEL_CALL_TIMEOUT_SECONDS, in resolveProvider). */
const TURN_MS = 5 * 60_000;

export const SYSTEM_PROMPT = [
  "You are the Agent Automation Hub assistant. You help people automate marketing and operations work by calling the tools you are given.",
  "Call a tool when it can do what the user asks; ask for missing details instead of guessing them. After tools run, answer briefly in Markdown with what was done and the key results.",
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
}

/**
 * One turn: store the user's message, offer the most relevant tools to the provider, run each
 * tool call through the hub's executor (limits, audit, connection health) and store its result,
 * repeat for a bounded number of rounds, then store and return the assistant's answer. Failures
 * end as an assistant message with status `error`; the user's message is always kept.
 */
export async function runTurn(ctx: ServiceContext, store: MessageStore, input: TurnInput, events: TurnEvents): Promise<MessageRecord> {
  const userMessage = store.add(input.conversationId, message("user", input.content, { status: "received" }));
  events.message(userMessage);

  let provider: ChatProvider | undefined;
  const calls: ToolCallRecord[] = [];
  let tokens = 0;
  try {
    // A conversation of an agent answers as that agent: its instructions, model and tools.
    const agent = await conversationAgentSettings(ctx, input.conversationId);
    const choice = agentProviderChoice(input.provider, agent);
    provider = await resolveProvider(ctx, choice.provider, choice.model);
    const tools = await chooseTools(ctx, input.content, agent);
    const history: ChatMessage[] = [
      { role: "system", content: agentSystemPrompt(SYSTEM_PROMPT, agent) },
      ...withinBudget(toChatHistory(store.tail(input.conversationId, MAX_HISTORY_MESSAGES))),
    ];
    const source = `conversation:${input.conversationId}`;
    const turnDeadline = AbortSignal.timeout(TURN_MS);

    for (let round = 1; round <= MAX_ROUNDS; round++) {
      const answer = await provider.generate({ messages: history, tools: round < MAX_ROUNDS ? tools : [], signal: turnDeadline });
      tokens += answer.usage.inputTokens + answer.usage.outputTokens;
      const requested = answer.toolCalls.slice(0, MAX_CALLS_PER_ROUND);
      if (requested.length === 0) {
        return finish(
          store,
          events,
          input,
          message("assistant", answer.text || "(no answer)", {
            status: "completed",
            tokens_used: tokens,
            tools_called: calls,
            provider: provider.id,
            model: answer.model,
          }),
        );
      }
      history.push({ role: "assistant", content: answer.text, toolCalls: requested });
      for (const call of requested) {
        events.toolStarted({ tool_call_id: call.id, name: call.name, arguments: call.arguments });
        // A tool the agent may not use is never run; the model hears why, as for any refused call.
        const refusal = toolRefusal(agent, call.name);
        const outcome = refusal
          ? refused(refusal)
          : await runTool(ctx, source, call, turnDeadline, (progress) => events.toolProgress({ tool_call_id: call.id, name: call.name, progress }));
        calls.push({ id: call.id, name: call.name, arguments: call.arguments, round, ...outcome.record });
        const stored = store.add(
          input.conversationId,
          message("tool", outcome.content, {
            status: outcome.record.success ? "completed" : "error",
            tool_call_id: call.id,
            error_message: outcome.record.error_message,
          }),
        );
        events.message(stored);
        history.push({ role: "tool", toolCallId: call.id, toolName: call.name, content: outcome.content });
      }
    }
    return finish(
      store,
      events,
      input,
      message("assistant", `Stopped after ${MAX_ROUNDS} rounds of tool calls without a final answer.`, {
        status: "completed",
        tokens_used: tokens,
        tools_called: calls,
        provider: provider.id,
      }),
    );
  } catch (error) {
    const detail = error instanceof ProviderError || error instanceof HubError ? error.message : "The assistant failed unexpectedly.";
    if (!(error instanceof ProviderError || error instanceof HubError)) {
      console.error(
        JSON.stringify({ level: "error", message: "conversation turn failed", conversation_id: input.conversationId, error: loggableError(error) }),
      );
    }
    return finish(
      store,
      events,
      input,
      message("assistant", "", { status: "error", error_message: detail, tokens_used: tokens, tools_called: calls, provider: provider?.id ?? input.provider }),
    );
  }
}

function finish(store: MessageStore, events: TurnEvents, input: TurnInput, record: ReturnType<typeof message>): MessageRecord {
  const stored = store.add(input.conversationId, record);
  events.message(stored);
  return stored;
}

function message(
  role: MessageRecord["role"],
  content: string,
  fields: Partial<Omit<MessageRecord, "id" | "conversation_id" | "created_at" | "role" | "content">>,
) {
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

/**
 * The tools offered this turn: those ranked relevant to the message first, then built-ins, capped;
 * for an agent's conversation, only among the tools its agent_config allows.
 */
export async function chooseTools(ctx: ServiceContext, content: string, agent: AgentModelSettings = {}): Promise<ToolSpec[]> {
  const catalog = agentCatalog(await catalogFor(ctx), agent);
  return selectTools(content, catalog).map((tool) => ({ name: tool.name, description: tool.description || tool.title, inputSchema: tool.input_schema }));
}

export function selectTools(content: string, catalog: ToolInfo[]): ToolInfo[] {
  const available = catalog.filter((tool) => tool.available);
  const chosen = rankTools(content, available, MAX_TOOLS_OFFERED).map((r) => r.tool);
  // A small catalog is offered whole (most relevant first): ranking only has to cut a large one.
  if (available.length <= MAX_TOOLS_OFFERED) return [...chosen, ...available.filter((tool) => !chosen.includes(tool))];
  for (const tool of catalog) {
    if (chosen.length >= MAX_TOOLS_OFFERED) break;
    if (tool.source === "builtin" && tool.available && !chosen.includes(tool)) chosen.push(tool);
  }
  return chosen;
}

function refused(reason: string): Awaited<ReturnType<typeof runTool>> {
  return { content: `Error: ${reason}`, record: { success: false, error_message: reason, duration_ms: 0, call_id: null } };
}

async function runTool(
  ctx: ServiceContext,
  source: string,
  call: { id: string; name: string; arguments: Record<string, unknown> },
  signal: AbortSignal,
  onProgress: (update: ProgressUpdate) => void,
): Promise<{ content: string; record: Omit<ToolCallRecord, "id" | "name" | "arguments" | "round"> }> {
  try {
    const result = await executeTool(ctx, call.name, call.arguments, { source, onProgress, signal });
    const content = result.success ? truncate(JSON.stringify(result.result)) : `Error: ${result.error_message}`;
    return { content, record: { success: result.success, error_message: result.error_message, duration_ms: result.duration_ms, call_id: result.call_id } };
  } catch (error) {
    // Refused before running (unknown tool, bad arguments, limits): the model hears why and may recover.
    const reason = error instanceof HubError ? error.message + (error.errors ? ` ${JSON.stringify(error.errors)}` : "") : "The tool could not be run.";
    return { content: `Error: ${reason}`, record: { success: false, error_message: reason, duration_ms: 0, call_id: null } };
  }
}

/**
 * Keeps the newest history that fits the character budget. Old tool results are shortened first;
 * then the oldest messages go, never splitting a tool call from its result.
 */
export function withinBudget(history: ChatMessage[]): ChatMessage[] {
  const size = (messages: ChatMessage[]) =>
    messages.reduce((n, m) => n + m.content.length + (m.role === "assistant" ? JSON.stringify(m.toolCalls ?? []).length : 0), 0);
  let kept = history.map((m, i) =>
    m.role === "tool" && i < history.length - 10 && m.content.length > 2000 ? { ...m, content: `${m.content.slice(0, 2000)}… (shortened)` } : m,
  );
  while (kept.length > 1 && size(kept) > MAX_HISTORY_CHARS) {
    kept = kept.slice(1);
    // A tool result without the assistant turn that asked for it would confuse the provider.
    while (kept.length > 1 && kept[0]!.role === "tool") kept = kept.slice(1);
  }
  return kept;
}

const truncate = (text: string) => (text.length > MAX_TOOL_RESULT_CHARS ? `${text.slice(0, MAX_TOOL_RESULT_CHARS)}… (truncated)` : text);
