import type { ChatMessage, ToolCallRequest } from "../../llm/types";
import type { ModelUsage } from "../../usage/model-usage";

/** One tool call of an `agent` step, numbered in the order the model asked (its idempotency key's `n`). */
export interface JournalCall extends ToolCallRequest {
  n: number;
  round: number;
  /** Set once it ended; absent while it runs or waits for a person. */
  outcome?: { success: boolean; content: string; error_message: string | null };
  /** The approval it waits on (a policy's `ask`). */
  approval_id?: string;
  /** An approved call about to run: a restart finds it started and does not run it again. */
  started?: boolean;
  /** When it last started running (epoch ms) and how long it took: the trace's execute_tool span. */
  started_ms?: number;
  ms?: number;
}

/** One model request that got an answer: the trace's `chat` span. */
export interface JournalRequest {
  model: string;
  started_ms: number;
  ms: number;
  input_tokens: number;
  output_tokens: number;
}

/**
 * What an `agent` step has done so far, checkpointed as its running record's result after each
 * model answer and each tool result, so a run that resumes (after a kill, or after a person
 * decided) goes on from there: the conversation the model has had, every call and how it ended,
 * the rounds used, and what its requests spent.
 */
export interface AgentJournal {
  kind: "agent_journal";
  /** After the system prompt and the prompt: the model's answers and the tool results, in order. */
  messages: ChatMessage[];
  calls: JournalCall[];
  rounds: number;
  usage: ModelUsage | null;
  /** Every model request so far, in order (absent in journals written before they were kept). */
  requests?: JournalRequest[];
  /** The approvals the last round's held calls wait on. */
  waiting?: string[];
}

export const newJournal = (): AgentJournal => ({ kind: "agent_journal", messages: [], calls: [], rounds: 0, usage: null, requests: [] });

export function journalOf(result: unknown): AgentJournal | undefined {
  return typeof result === "object" && result !== null && (result as AgentJournal).kind === "agent_journal" ? (result as AgentJournal) : undefined;
}

/** The calls of the journal's last answer that have not ended: held for approval, or cut short by a restart. */
export function unfinishedCalls(journal: AgentJournal): JournalCall[] {
  return journal.calls.filter((call) => call.round === journal.rounds && !call.outcome);
}

/**
 * Appends the last round's tool results, in the model's order, once every call of it has ended:
 * the model hears them all together in its next request, as the loop would have given them.
 */
export function closeRound(journal: AgentJournal): void {
  const round = journal.calls.filter((call) => call.round === journal.rounds);
  if (round.some((call) => !call.outcome)) return;
  const answered = new Set(journal.messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
  for (const call of round)
    if (!answered.has(call.id)) journal.messages.push({ role: "tool", toolCallId: call.id, toolName: call.name, content: call.outcome!.content });
}
