import type { ToolSpec } from "../../llm/types";
import type { ToolInfo } from "../../tools/types";
import { toolIndexFor } from "./index-cache";
import { SEARCH_TOOLS, SEARCH_TOOLS_SPEC } from "./search-tools";
import type { ToolIndex, WeightedText } from "./tool-index";

/** A catalog this small is offered whole: choosing would only risk leaving out the right tool. */
export const OFFER_ALL_UP_TO = 20;
/** Definitions one model request carries when the catalog is larger, search_tools included. */
export const MAX_OFFERED = 16;

/** Why a tool is in a request: the whole catalog, the search tool, used or found earlier, or ranked for the conversation. */
export type OfferReason = "all" | "search_tools" | "used_or_found" | "ranked";

export interface OfferedTool {
  name: string;
  reason: OfferReason;
  /** The ranking's score for the conversation, when it ranked the tool at all. */
  score: number | null;
}

export interface OfferInput {
  /** The tools the turn may use (the agent's allowed tools only); unavailable ones are left out here. */
  catalog: readonly ToolInfo[];
  /** The catalog's index; found (or built) with `toolIndexFor(catalog)` when not given. */
  index?: ToolIndex;
  /** The conversation so far, weighted (see `conversationSoFar`), or its text. */
  conversation: string | readonly WeightedText[];
  /** Tools the conversation called or found with search_tools, newest first (see `usedOrFound`). */
  usedOrFound: readonly string[];
  max?: number;
}

export interface Offer {
  tools: ToolSpec[];
  reasons: Map<string, OfferReason>;
  /** The same set in order, with scores: what `…/explain-tools` shows. */
  offered: OfferedTool[];
  /** Whether search_tools is among the tools (only when the catalog is larger than OFFER_ALL_UP_TO). */
  searchTools: boolean;
}

/** A catalog entry as a model sees it. */
export function toolSpecOf(tool: ToolInfo): ToolSpec {
  return { name: tool.name, description: tool.description || tool.title, inputSchema: tool.input_schema };
}

/**
 * The tool definitions of one model request. A catalog of at most OFFER_ALL_UP_TO available
 * tools is offered whole. A larger one gets at most `max` definitions: search_tools, then the
 * tools the conversation already called or found (newest first), then the best-ranked tools for
 * the conversation so far. Deterministic: the same input gives the same list in the same order.
 */
export function toolsForRequest(input: OfferInput): Offer {
  const available = input.catalog.filter((tool) => tool.available);
  const offered: OfferedTool[] = [];
  const tools: ToolSpec[] = [];
  const add = (spec: ToolSpec, reason: OfferReason, score: number | null) => {
    tools.push(spec);
    offered.push({ name: spec.name, reason, score });
  };

  if (available.length <= OFFER_ALL_UP_TO) {
    const seen = new Set<string>();
    for (const tool of available) {
      if (seen.has(tool.name)) continue;
      seen.add(tool.name);
      add(toolSpecOf(tool), "all", null);
    }
    return finish(tools, offered, false);
  }

  const max = Math.max(1, input.max ?? MAX_OFFERED);
  const index = input.index ?? toolIndexFor(available);
  // Definitions always come from this catalog, never from the cached index: an index is shared by
  // every catalog with its fingerprint, and a tool's schema may change without changing that.
  const current = new Map(available.map((tool) => [tool.name, tool]));
  // Ranked once for the whole budget, so a used tool that also ranks high shows its score.
  const ranked = index.rank(input.conversation, max);
  const scores = new Map(ranked.map((r) => [r.tool.name, r.score]));
  const chosen = new Set<string>([SEARCH_TOOLS]);
  add(SEARCH_TOOLS_SPEC, "search_tools", null);
  for (const name of input.usedOrFound) {
    if (tools.length >= max) break;
    const tool = current.get(name);
    if (!tool || chosen.has(name)) continue;
    chosen.add(name);
    add(toolSpecOf(tool), "used_or_found", scores.get(name) ?? null);
  }
  for (const { tool: rankedTool, score } of ranked) {
    if (tools.length >= max) break;
    const tool = current.get(rankedTool.name);
    if (!tool || chosen.has(tool.name)) continue;
    chosen.add(tool.name);
    add(toolSpecOf(tool), "ranked", score);
  }
  return finish(tools, offered, true);
}

function finish(tools: ToolSpec[], offered: OfferedTool[], searchTools: boolean): Offer {
  return { tools, offered, reasons: new Map(offered.map((o) => [o.name, o.reason])), searchTools };
}
