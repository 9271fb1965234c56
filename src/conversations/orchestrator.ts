import { compactionCut, summarise, summaryMessage } from "../agent-loop/compaction";
import { refusal, runAgentLoop } from "../agent-loop/loop";
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
import { type TurnTools, turnTools } from "./turn-tools";
import { attachMessage, withdrawApprovals } from "../approvals/service";
import { BudgetExceededError } from "../usage/budgets";
import { nanoUsdOf } from "../usage/money";
import { type GovernedProvider, governedProvider } from "../usage/governed-provider";
import { TurnTrace } from "../traces/turn-trace";
import type { ApprovalView } from "../approvals/present";

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
  /** The hub's origin as the sending request reached it: approval emails link there when PUBLIC_URL is unset. */
  origin?: string;
}

/** A turn that waited for approvals, now decided. */
export interface WaitingTurn {
  message: MessageRecord;
  decisions: ApprovalView[];
  /** Claims an approved call's one run (false: it was started before a restart). */
  claim(approvalId: string): boolean;
}

export interface TurnEvents {
  message(record: MessageRecord): void;
  toolProgress(event: { tool_call_id: string; name: string; progress: ProgressUpdate }): void;
  toolStarted(event: { tool_call_id: string; name: string; arguments: Record<string, unknown> }): void;
  toolFinished?(event: { tool_call_id: string; name: string; success: boolean; duration_ms: number }): void;
  delta?(event: { round: number; text: string }): void;
  /** A tool call that finished, as its answer will record it (its result is stored already). */
  callRecorded?(call: ToolCallRecord): void;
  /** A call a policy sent to a person (DESIGN §6.2); the turn waits for it after this round. */
  approvalRequested?(approval: ApprovalView): void;
}

/**
 * One conversation turn, driving the agent loop (src/agent-loop/): store the user's message,
 * replay the history (compacted into a summary when it passes the agent's context_chars), let the
 * loop ask the model and run its tool calls, store each tool result as it ends and the answer at
 * the end. Failures end as an assistant message with status `error`; a stop as one with status
 * `stopped` and the text produced so far; the user's message is always kept. A round with a call
 * a policy sent to a person ends the turn `awaiting_approval` (continueTurn goes on from there).
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
  // The turn's trace (DESIGN §6.3) is stored against the answer it ends with.
  const trace = new TurnTrace(input.conversationId);
  const answer = await driveTurn(ctx, store, input, trace.watch(events), stop, { recallFor: input.content, trace });
  await trace.save(ctx, answer);
  return answer;
}

/**
 * Goes on with a turn that waited for approvals once every one is decided: the approved calls run
 * with their final arguments, the denied and expired ones are told to the model, the waiting
 * answer records how each ended, and the loop carries on from the history as the model would
 * have seen it had the calls run then.
 */
export async function continueTurn(
  ctx: ServiceContext,
  store: MessageStore,
  input: TurnInput,
  waiting: WaitingTurn,
  events: TurnEvents,
  stop: AbortSignal = new AbortController().signal,
): Promise<MessageRecord> {
  // A trace of its own, stored against the answer this part ends with; the decided calls are in it.
  const trace = new TurnTrace(input.conversationId);
  const watched = trace.watch(events);
  const before = waiting.message;
  const answer = await driveTurn(ctx, store, input, watched, stop, {
    recallFor: null,
    trace,
    // The turn's budget and rounds go on from where it waited, not from zero.
    spent: {
      rounds: Math.max(0, ...before.tools_called.map((call) => call.round)),
      tokens: before.usage ? before.usage.input_tokens + before.usage.output_tokens : before.tokens_used,
      nanoUsd: before.usage ? nanoUsdOf(before.usage.cost_usd) : 0,
    },
    prelude: (tools) => runDecidedCalls(store, input.conversationId, waiting, tools.runApproved, watched),
  });
  await trace.save(ctx, answer);
  return answer;
}

async function driveTurn(
  ctx: ServiceContext,
  store: MessageStore,
  input: TurnInput,
  events: TurnEvents,
  stop: AbortSignal,
  options: {
    recallFor: string | null;
    trace: TurnTrace;
    prelude?: (tools: TurnTools) => Promise<void>;
    /** What the turn spent before it waited for approvals (continueTurn). */
    spent?: { rounds: number; tokens: number; nanoUsd: number };
  },
): Promise<MessageRecord> {
  let provider: ChatProvider | undefined;
  let governed: GovernedProvider | undefined;
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
    // Every request of the turn (the loop's, compaction's) is budgeted and lands in the ledger.
    const spent = options.spent ?? { rounds: 0, tokens: 0, nanoUsd: 0 };
    const scope = { agentId: agent.agentId, conversationId: input.conversationId, budget: agent.budget, turnSpentBefore: spent };
    provider = governed = governedProvider(ctx, await resolveProvider(ctx, choice.provider, choice.model, setup), scope);
    const tools = turnTools(ctx, {
      catalog: agentCatalog(await catalog, agent.settings),
      agent: agent.settings,
      source: `conversation:${input.conversationId}`,
      memory: agent.memory && agent.agentId ? { agentId: agent.agentId, conversationId: input.conversationId } : undefined,
      approvals: {
        conversationId: input.conversationId,
        agentId: agent.agentId,
        origin: input.origin,
        ...agent.approvals,
        requested: (approval) => events.approvalRequested?.(approval),
      },
    });
    await options.prelude?.(tools);
    // The agent's memories that best match the new message go in this turn's system prompt.
    const recall = agent.memory && agent.agentId && options.recallFor ? recallForPrompt(ctx, agent.agentId, options.recallFor) : Promise.resolve("");
    const replayed = await replayHistory(store, input.conversationId, agent, provider, AbortSignal.any([stop, deadline]));
    tokens += replayed.tokens;
    if (replayed.summary) events.message(replayed.summary);

    const system = [agentSystemPrompt(SYSTEM_PROMPT, agent.settings), await recall].filter(Boolean).join("\n\n");
    const outcome = await runAgentLoop(
      {
        provider,
        messages: [{ role: "system", content: system }, ...replayed.history],
        offer: tools.offer(replayed.history),
        run: tools.run,
        // At least one request: the model must hear how the decided calls ended.
        maxSteps: Math.max(1, agent.loop.maxSteps - spent.rounds),
        maxParallel: ctx.config.limits.parallelToolCalls,
        stop,
        deadline,
        calls,
      },
      {
        ...options.trace.modelEvents(provider, agent.agentId),
        delta: (round, text) => events.delta?.({ round, text }),
        toolStarted: events.toolStarted,
        toolProgress: events.toolProgress,
        toolEnded: (call, result) =>
          events.toolFinished?.({ tool_call_id: call.id, name: call.name, success: result.success, duration_ms: result.duration_ms }),
        toolFinished: (call, result) => storeToolResult(store, events, input.conversationId, call, result),
      },
    );
    tokens += outcome.usage.inputTokens + outcome.usage.outputTokens;
    const fields = { tokens_used: tokens, tools_called: recorded(calls), provider: provider.id, model: outcome.model, usage: governed.usage() };
    if (outcome.status === "awaiting_approval") {
      const waiting = finish(
        store,
        events,
        input,
        message("assistant", outcome.text, { ...fields, status: "awaiting_approval", pending_approvals: outcome.awaiting }),
      );
      await attachMessage(ctx, outcome.awaiting, waiting.id);
      return waiting;
    }
    // A stop in the round that asked leaves nothing to wait: its approvals are closed.
    await withdrawApprovals(ctx, heldApprovals(calls), "The turn was stopped before anyone decided.");
    const status = outcome.status === "stopped" ? "stopped" : "completed";
    const content = outcome.status === "completed" ? outcome.text || "(no answer)" : outcome.text;
    return finish(store, events, input, message("assistant", content, { ...fields, status }));
  } catch (error) {
    options.trace.failed(error);
    await withdrawApprovals(ctx, heldApprovals(calls), "The turn ended before anyone decided.").catch(() => undefined);
    // A stop that lands outside a model request (while compacting, say) is still a stop.
    if (stop.aborted)
      return finish(
        store,
        events,
        input,
        message("assistant", "", {
          status: "stopped",
          tokens_used: tokens,
          tools_called: recorded(calls),
          provider: provider?.id ?? input.provider,
          usage: governed?.usage() ?? null,
        }),
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
        // A spent budget ends the turn before the request, naming the budget (DESIGN §6.2 Budgets).
        status: error instanceof BudgetExceededError ? "budget_exceeded" : "error",
        error_message: detail,
        tokens_used: tokens,
        tools_called: recorded(calls),
        provider: provider?.id ?? input.provider,
        usage: governed?.usage() ?? null,
      }),
    );
  }
}

/**
 * The calls a waiting answer held for approval, run or refused as decided, each stored as its tool
 * result and recorded on the waiting answer (which is then completed): the replayed history then
 * reads as if the calls had ended in that round.
 */
async function runDecidedCalls(
  store: MessageStore,
  conversationId: number,
  waiting: WaitingTurn,
  runApproved: TurnTools["runApproved"],
  events: TurnEvents,
): Promise<void> {
  const decided = new Map(waiting.decisions.map((approval) => [approval.id, approval]));
  const updated: ToolCallRecord[] = [];
  for (const call of waiting.message.tools_called) {
    const approval = call.approval_id ? decided.get(call.approval_id) : undefined;
    if (!approval) {
      updated.push(call);
      continue;
    }
    const args = approval.status === "approved" ? approval.arguments : call.arguments;
    events.toolStarted({ tool_call_id: call.id, name: call.name, arguments: args });
    // An approved call runs once: started before a restart, it is not started again.
    const result =
      approval.status === "approved" && !waiting.claim(approval.id)
        ? refusal("Not run again: the hub restarted while this approved call ran, so it may have run already. Check before trying again.")
        : await runApproved({ id: call.id, name: call.name, arguments: args }, approval);
    events.toolFinished?.({ tool_call_id: call.id, name: call.name, success: result.success, duration_ms: result.duration_ms });
    const record: ToolCallRecord = {
      ...call,
      arguments: args,
      success: result.success,
      error_message: result.error_message,
      duration_ms: result.duration_ms,
      call_id: result.call_id,
    };
    storeToolResult(store, events, conversationId, record, result);
    updated.push(record);
  }
  const completed = store.settleWaiting(conversationId, waiting.message.id, updated);
  if (completed) events.message(completed);
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
  // A call held for approval has no result yet: it is stored when decided (runDecidedCalls).
  if (result.awaiting_approval) {
    events.callRecorded?.(recorded([call])[0]!);
    return;
  }
  const stored = store.add(
    conversationId,
    message("tool", result.content, { status: result.success ? "completed" : "error", tool_call_id: call.id, error_message: result.error_message }),
  );
  events.message(stored);
  events.callRecorded?.(recorded([call])[0]!);
}

/** The approvals the turn's calls were held for. */
const heldApprovals = (calls: LoopCall[]) => calls.flatMap((call) => (call.approval_id ? [call.approval_id] : []));

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
    ...(c.approval_id ? { approval_id: c.approval_id } : {}),
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
    usage: fields.usage ?? null,
    pending_approvals: fields.pending_approvals ?? [],
  };
}
