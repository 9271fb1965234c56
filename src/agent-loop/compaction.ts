import type { ChatMessage, ChatProvider } from "../llm/types";

/** agent_config.context_chars: the history a request may replay, in characters (default and bounds). */
export const DEFAULT_CONTEXT_CHARS = 60_000;
export const MIN_CONTEXT_CHARS = 4_000;
export const MAX_CONTEXT_CHARS = 400_000;
/** What a summary may be: what the model is asked for, and the cut applied to whatever it answers. */
const SUMMARY_CHARS = 4_000;
/** The transcript a summary is written from, at most (its newest part). */
const TRANSCRIPT_CHARS = 100_000;

/** The characters a history costs to replay: contents plus the tool calls' names and arguments. */
export function historyChars(messages: ChatMessage[]): number {
  return messages.reduce((n, m) => n + m.content.length + (m.role === "assistant" && m.toolCalls ? JSON.stringify(m.toolCalls).length : 0), 0);
}

/**
 * Where to cut a history that is over its budget: the index of the first message to keep whole,
 * chosen so the kept part takes at most half the budget (room for the summary and the turn's
 * own rounds) and starts at a user message, so a tool result is never kept without the call
 * that asked for it (or the reverse). Null when nothing needs cutting or no user message allows
 * a cut (the newest user message is always kept).
 */
export function compactionCut(messages: ChatMessage[], budgetChars: number): number | null {
  if (historyChars(messages) <= budgetChars) return null;
  const cut = cutPoint(messages, budgetChars);
  // A cut that would summarise only the previous summary again gains nothing: replay as is.
  return cut === 1 && messages[0]!.role === "system" ? null : cut;
}

function cutPoint(messages: ChatMessage[], budgetChars: number): number | null {
  let kept = 0;
  let cut: number | null = null;
  for (let i = messages.length - 1; i > 0; i--) {
    kept += historyChars([messages[i]!]);
    if (messages[i]!.role !== "user") continue;
    // The newest user message is kept whatever it costs; older turns only while they fit.
    if (cut !== null && kept > budgetChars / 2) break;
    cut = i;
  }
  return cut;
}

/**
 * A summary of `older` (the previous summary, if any, comes first in it) written by the same
 * provider. The local provider writes no prose, so its summary is extractive: the start of each
 * request and answer, newest kept when it is long.
 */
export async function summarise(provider: ChatProvider, older: ChatMessage[], signal: AbortSignal): Promise<{ text: string; tokens: number }> {
  // A previous summary (first, as a system message) always leads the transcript whole: cutting
  // the transcript to its newest part must not drop what the older turns came to.
  const [head, rest] = older[0]?.role === "system" ? [`${older[0].content}\n`, older.slice(1)] : ["", older];
  const transcript =
    head +
    rest
      .map((m) => (m.role === "tool" ? `tool ${m.toolName}: ${m.content.slice(0, 1000)}` : `${m.role}: ${m.content}`))
      .join("\n")
      .slice(-(TRANSCRIPT_CHARS - head.length));
  if (provider.id === "local") return { text: extractive(older), tokens: 0 };
  const answer = await provider.generate({
    messages: [
      {
        role: "system",
        content: `Summarise this conversation for your own later use, in at most ${Math.floor(SUMMARY_CHARS / 6)} words: the person's goals, facts learned, decisions, results of tool calls that still matter, and what is still open. Plain text only.`,
      },
      { role: "user", content: transcript },
    ],
    tools: [],
    signal,
  });
  return { text: answer.text.slice(0, SUMMARY_CHARS), tokens: answer.usage.inputTokens + answer.usage.outputTokens };
}

function extractive(older: ChatMessage[]): string {
  const lines = older
    .filter((m) => m.role === "user" || m.role === "system" || (m.role === "assistant" && m.content))
    .map((m) => `${m.role === "system" ? "earlier" : m.role}: ${m.content.replace(/\s+/g, " ").slice(0, 300)}`);
  let text = "";
  for (const line of lines.reverse()) {
    if (text.length + line.length + 1 > SUMMARY_CHARS) break;
    text = `${line}\n${text}`;
  }
  return text.trim();
}

/** How a stored summary is replayed to the model. */
export const summaryMessage = (summary: string): ChatMessage => ({ role: "system", content: `Summary of the earlier conversation:\n${summary}` });
