import type { ToolInfo } from "../../tools/types";
import type { ToolSpec } from "../../llm/types";
import type { ToolIndex } from "./tool-index";
import { parameterNames } from "./tool-fields";

export const SEARCH_TOOLS = "search_tools";
export const SEARCH_LIMIT_DEFAULT = 5;
export const SEARCH_LIMIT_MAX = 10;
const MAX_QUERY_LENGTH = 500;
/** Characters of each found tool's description sent back: enough to choose; the full one comes with the tool's definition. */
const MAX_DESCRIPTION_CHARS = 400;

/** The definition offered to the model when the catalog is too large to offer whole. */
export const SEARCH_TOOLS_SPEC: ToolSpec = {
  name: SEARCH_TOOLS,
  description:
    "Search every tool you may use, not only those offered now, by what you want to do (for example: send an SMS, create a HubSpot contact). " +
    "Answers the best matches with their parameters; the tools found can be called in your next request.",
  inputSchema: {
    type: "object",
    properties: {
      query: { type: "string", minLength: 1, maxLength: MAX_QUERY_LENGTH, description: "What the tool should do, in a few words." },
      limit: { type: "integer", minimum: 1, maximum: SEARCH_LIMIT_MAX, default: SEARCH_LIMIT_DEFAULT, description: "How many tools to return." },
    },
    required: ["query"],
    additionalProperties: false,
  },
};

export interface FoundTool {
  name: string;
  title: string;
  description: string;
  platform: string | null;
  parameters: string[];
}

export interface SearchToolsResult {
  tools: FoundTool[];
}

export type SearchToolsOutcome = { ok: true; result: SearchToolsResult } | { ok: false; error: string };

/**
 * Runs a `search_tools` call over the index of the catalog the turn may use. Pure: the same
 * index and arguments give the same answer. Bad arguments are answered as an error the model
 * can read and correct, not thrown.
 */
export function runSearchTools(index: ToolIndex, args: unknown, current?: ReadonlyMap<string, ToolInfo>): SearchToolsOutcome {
  const parsed = parseArguments(args);
  if ("error" in parsed) return { ok: false, error: parsed.error };
  // What is shown comes from the caller's own catalog when given (the index may be shared).
  const ranked = index
    .rank(parsed.query, parsed.limit)
    .map(({ tool }) => (current ? current.get(tool.name) : tool))
    .filter((tool): tool is ToolInfo => tool !== undefined);
  return {
    ok: true,
    result: {
      tools: ranked.map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description.length > MAX_DESCRIPTION_CHARS ? `${tool.description.slice(0, MAX_DESCRIPTION_CHARS)}…` : tool.description,
        platform: tool.platform,
        parameters: parameterNames(tool),
      })),
    },
  };
}

function parseArguments(args: unknown): { query: string; limit: number } | { error: string } {
  if (!args || typeof args !== "object" || Array.isArray(args)) return { error: "search_tools takes an object: {query, limit?}." };
  const { query, limit, ...rest } = args as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length) return { error: `search_tools takes only query and limit, not ${unknown.join(", ")}.` };
  if (typeof query !== "string" || query.trim().length === 0 || query.length > MAX_QUERY_LENGTH) {
    return { error: `query must be a non-empty string of at most ${MAX_QUERY_LENGTH} characters.` };
  }
  if (limit === undefined || limit === null) return { query, limit: SEARCH_LIMIT_DEFAULT };
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMIT_MAX) {
    return { error: `limit must be a whole number from 1 to ${SEARCH_LIMIT_MAX}.` };
  }
  return { query, limit };
}
