import type { ChatMessage } from "../../llm/types";
import { SEARCH_TOOLS } from "./search-tools";
import type { WeightedText } from "./tool-index";

/**
 * How much each part of the conversation counts in ranking, newest user message first. A user
 * often explains the job in one message and says "go ahead" in the next: the older messages
 * still count, less. The assistant's latest answer names what it is about to do, but is
 * the model's words, not the person's.
 */
export const USER_MESSAGE_WEIGHTS = [1, 0.7, 0.5];
export const ASSISTANT_ANSWER_WEIGHT = 0.4;

/** Most names `usedOrFound` returns: more than a request can carry anyway. */
const MAX_USED_OR_FOUND = 64;

/** The texts tools are ranked against: the last few user messages and the assistant's latest answer, weighted. */
export function conversationSoFar(messages: readonly ChatMessage[]): WeightedText[] {
  const texts: WeightedText[] = [];
  let users = 0;
  let answered = false;
  for (let i = messages.length - 1; i >= 0 && (users < USER_MESSAGE_WEIGHTS.length || !answered); i--) {
    const message = messages[i]!;
    if (message.role === "user" && users < USER_MESSAGE_WEIGHTS.length) {
      texts.push({ text: message.content, weight: USER_MESSAGE_WEIGHTS[users++]! });
    } else if (message.role === "assistant" && !answered && message.content.trim()) {
      texts.push({ text: message.content, weight: ASSISTANT_ANSWER_WEIGHT });
      answered = true;
    }
  }
  return texts;
}

/**
 * The tools the conversation already called, or found with search_tools, newest first, each
 * once. A search's results keep their rank order; the calls of one answer their order.
 */
export function usedOrFound(messages: readonly ChatMessage[]): string[] {
  const names: string[] = [];
  const seen = new Set<string>();
  const note = (name: string) => {
    if (name === SEARCH_TOOLS || seen.has(name) || names.length >= MAX_USED_OR_FOUND) return;
    seen.add(name);
    names.push(name);
  };
  for (let i = messages.length - 1; i >= 0 && names.length < MAX_USED_OR_FOUND; i--) {
    const message = messages[i]!;
    if (message.role === "tool" && message.toolName === SEARCH_TOOLS) for (const name of foundIn(message.content)) note(name);
    if (message.role === "assistant") for (const call of message.toolCalls ?? []) note(call.name);
  }
  return names;
}

/** The tool names of a search_tools result as the model read it (its JSON); nothing for an error or other text. */
export function foundIn(content: string): string[] {
  if (!content.startsWith("{")) return [];
  try {
    const parsed = JSON.parse(content) as { tools?: unknown };
    if (!Array.isArray(parsed.tools)) return [];
    return parsed.tools.flatMap((tool) =>
      tool && typeof tool === "object" && typeof (tool as { name?: unknown }).name === "string" ? [(tool as { name: string }).name] : [],
    );
  } catch {
    return [];
  }
}
