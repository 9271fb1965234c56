import type { ChatMessage } from "../../llm/types";
import type { ToolInfo } from "../../tools/types";
import { conversationSoFar, usedOrFound } from "./conversation";
import { toolIndexFor } from "./index-cache";
import { type OfferedTool, toolsForRequest } from "./offer";
import type { RankedTool } from "./tool-index";

export interface ToolChoiceExplanation {
  /** The tools that best match the newest message alone, best first, with why. */
  ranked: Array<{ name: string; score: number; reason: string }>;
  /** The definitions the next model request would carry, in order, and why each. */
  offered: OfferedTool[];
  searchTools: boolean;
}

/**
 * What `…/explain-tools` shows for a conversation whose history (the new message last) is
 * `history`: the same choice a turn makes for its first model request, and the ranking of the
 * newest message on its own.
 */
export function explainToolChoice(catalog: readonly ToolInfo[], history: readonly ChatMessage[], limit = 10): ToolChoiceExplanation {
  const index = toolIndexFor(catalog);
  const offer = toolsForRequest({ catalog, index, conversation: conversationSoFar(history), usedOrFound: usedOrFound(history) });
  const newest = [...history].reverse().find((message) => message.role === "user")?.content ?? "";
  return {
    ranked: index.rank(newest, limit).map((ranked) => ({ name: ranked.tool.name, score: round(ranked.score), reason: reasonOf(ranked) })),
    offered: offer.offered.map((offered) => ({ ...offered, score: offered.score === null ? null : round(offered.score) })),
    searchTools: offer.searchTools,
  };
}

/** `"uuid" in name, title; "generate" in name, description`: the request's words and where the tool has them. */
export function reasonOf(ranked: RankedTool): string {
  return ranked.matched.map((match) => `"${match.word}" in ${match.fields.join(", ") || "related words"}`).join("; ");
}

const round = (score: number) => Math.round(score * 1000) / 1000;
