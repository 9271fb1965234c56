import type { ToolSpec } from "../../llm/types";
import type { ToolInfo } from "../../tools/types";
import type { ToolOffer, ToolOutcome } from "../types";
import { toolIndexFor } from "./index-cache";
import { MAX_OFFERED, type Offer, toolsForRequest } from "./offer";
import { SEARCH_TOOLS, runSearchTools } from "./search-tools";
import type { WeightedText } from "./tool-index";

export interface CatalogToolChoice {
  /** For the loop: the definitions of each model request, and the tools called or found on the way. */
  offer: ToolOffer;
  /** The last offer made, with the reason for each tool. */
  lastOffer(): Offer | null;
  /** Runs a search_tools call; the tools it finds are offered in the next request. */
  search(args: unknown): ToolOutcome;
}

/**
 * Tool choice for one turn over the catalog it may use (DESIGN §6.1), in the shape the agent
 * loop drives: `offer.next()` before each model request, `offer.note(names)` with the tools the
 * model called, and `search` for its search_tools calls. `extra` are definitions every request
 * carries besides the catalog (memory tools), taken from the same budget of 16.
 */
export function catalogToolChoice(input: {
  catalog: readonly ToolInfo[];
  /** The conversation so far (see conversationSoFar), or its text. */
  conversation: string | readonly WeightedText[];
  /** Tools the conversation called or found before this turn, newest first (see usedOrFound). */
  usedOrFound: readonly string[];
  extra?: readonly ToolSpec[];
}): CatalogToolChoice {
  const index = toolIndexFor(input.catalog);
  const current = new Map(input.catalog.filter((tool) => tool.available).map((tool) => [tool.name, tool]));
  const extra = input.extra ?? [];
  const recent = [...input.usedOrFound];
  let last: Offer | null = null;
  const note = (names: readonly string[]) => {
    // Newest first: the names of one call or search keep their order at the front.
    for (const name of [...names].reverse()) {
      if (name === SEARCH_TOOLS) continue;
      const at = recent.indexOf(name);
      if (at >= 0) recent.splice(at, 1);
      recent.unshift(name);
    }
  };
  return {
    offer: {
      next() {
        last = toolsForRequest({ catalog: input.catalog, index, conversation: input.conversation, usedOrFound: recent, max: MAX_OFFERED - extra.length });
        return [...extra, ...last.tools];
      },
      note,
    },
    lastOffer: () => last,
    search(args) {
      const outcome = runSearchTools(index, args, current);
      if (!outcome.ok) return { content: `Error: ${outcome.error}`, success: false, error_message: outcome.error, duration_ms: 0, call_id: null };
      note(outcome.result.tools.map((tool) => tool.name));
      return { content: JSON.stringify(outcome.result), success: true, error_message: null, duration_ms: 0, call_id: null };
    },
  };
}
