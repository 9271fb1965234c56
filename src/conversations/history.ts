import type { ChatMessage } from "../llm/types";
import type { MessageRecord } from "./messages";

/**
 * Rebuilds what the model saw from stored messages. A turn is stored as: the user message, one
 * tool message per call, then the assistant's final message, whose `tools_called` records which
 * round asked for each call; that is enough to replay the rounds exactly. A call that waited for
 * approval has its result stored just after the answer that asked for it, once decided.
 */
export function toChatHistory(records: MessageRecord[]): ChatMessage[] {
  const history: ChatMessage[] = [];
  let pendingTools: MessageRecord[] = [];
  for (const [index, record] of records.entries()) {
    if (record.role === "tool") {
      pendingTools.push(record);
      continue;
    }
    if (record.role === "assistant") {
      const rounds = new Map<number, typeof record.tools_called>();
      for (const call of record.tools_called) rounds.set(call.round, [...(rounds.get(call.round) ?? []), call]);
      for (const round of [...rounds.keys()].sort((a, b) => a - b)) {
        const calls = rounds.get(round)!;
        history.push({ role: "assistant", content: "", toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) });
        for (const call of calls) {
          const result = pendingTools.find((t) => t.tool_call_id === call.id) ?? decidedResult(records, index, call.id);
          history.push({ role: "tool", toolCallId: call.id, toolName: call.name, content: result?.content ?? "(no result was stored)" });
        }
      }
      pendingTools = [];
      // A failed turn (or one a budget ended) has no answer to replay; its tool calls (above) still happened.
      if (record.status !== "error" && record.status !== "budget_exceeded" && record.content) history.push({ role: "assistant", content: record.content });
      continue;
    }
    pendingTools = [];
    if (record.role === "user") history.push({ role: "user", content: record.content });
    if (record.role === "system") history.push({ role: "system", content: record.content });
  }
  return history;
}

/**
 * The result of a call that waited for approval: stored after the answer that asked for it, once
 * decided, and before the turn's next answer (call ids are unique only within a turn).
 */
function decidedResult(records: MessageRecord[], answerIndex: number, callId: string): MessageRecord | undefined {
  for (const record of records.slice(answerIndex + 1)) {
    if (record.role === "tool" && record.tool_call_id === callId) return record;
    if (record.role !== "tool") return undefined;
  }
  return undefined;
}
