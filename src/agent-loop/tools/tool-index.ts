import MiniSearch, { type MatchInfo } from "minisearch";
import type { ToolInfo } from "../../tools/types";
import { type Action, OTHER_ACTION_FACTOR, toolActions } from "./actions";
import { catalogFingerprint } from "./fingerprint";
import { namedPlatforms, parseQuery, type WeightedText } from "./query";
import { type IndexedField, fieldTerms, fieldsWith, weightedTerms } from "./tool-fields";

export type { WeightedText } from "./query";

/** A query word that matched a tool, and in which of its fields. */
export interface MatchedWord {
  word: string;
  fields: IndexedField[];
}

export interface RankedTool {
  tool: ToolInfo;
  /** BM25+ over the weighted fields, times the factors below; higher is better, comparable within one ranking. */
  score: number;
  matched: MatchedWord[];
}

/** A lexical index over one catalog version: built once (see `toolIndexFor`), then read by every request. */
export interface ToolIndex {
  readonly fingerprint: string;
  /** The tools it holds: the available ones of the catalog it was built from, by name. */
  readonly tools: ReadonlyMap<string, ToolInfo>;
  /** The tools that match, best first, ties by name; at most `limit`. */
  rank(query: string | readonly WeightedText[], limit: number): RankedTool[];
}

/** How much a tool keeps when the request names a platform that is neither the tool's nor mentioned by it. */
const OTHER_PLATFORM_FACTOR = 0.8;

/** How much more a tool scores when the request holds every word of its name (in proportion for some of them). */
const NAME_COVERAGE_BONUS = 0.5;

/** The index reads terms made already (by weightedTerms and queryTree): split on spaces, keep as they are. */
const asTerms = { tokenize: (text: string) => text.split(" "), processTerm: (term: string) => term };

/**
 * Builds the index of a catalog's available tools. Tools go in by name, so the same set of tools
 * always gives the same scores (BM25's field-length averages are sums in insertion order).
 * `knownFingerprint` spares hashing the catalog again when the caller just did.
 */
export function buildToolIndex(catalog: readonly ToolInfo[], knownFingerprint?: string): ToolIndex {
  const available = catalog.filter((tool) => tool.available);
  const fingerprint = knownFingerprint ?? catalogFingerprint(available);
  const byName = new Map<string, ToolInfo>();
  for (const tool of [...available].sort((a, b) => compareNames(a.name, b.name))) if (!byName.has(tool.name)) byName.set(tool.name, tool);

  const search = new MiniSearch<ToolInfo>({
    idField: "id",
    fields: ["terms"],
    extractField: (tool, field) => (field === "id" ? tool.name : weightedTerms(tool)),
    ...asTerms,
  });
  search.addAll([...byName.values()]);
  const actionsOf = new Map<string, readonly Action[]>();
  const nameTermsOf = new Map<string, string[]>();
  const platformIds = new Set<string>();
  for (const tool of byName.values()) {
    actionsOf.set(tool.name, toolActions(tool));
    nameTermsOf.set(tool.name, [...new Set(fieldTerms(tool, "name"))]);
    if (tool.platform && tool.platform !== "mcp") platformIds.add(tool.platform);
  }

  return {
    fingerprint,
    tools: byName,
    rank(query, limit) {
      const texts = typeof query === "string" ? [{ text: query, weight: 1 }] : query;
      const { tree, wordOf, actions, terms: asked, words } = parseQuery(texts);
      const platforms = namedPlatforms(words, platformIds);
      if (tree.queries.length === 0 || limit <= 0) return [];
      const scored: Array<{ tool: ToolInfo; score: number; terms: string[] }> = [];
      for (const result of search.search(tree, asTerms)) {
        const tool = byName.get(result.id as string);
        if (!tool) continue;
        // A tool whose verb is none of those the request uses ranks lower (see actions.ts).
        const toolDoes = actionsOf.get(tool.name) ?? [];
        const otherAction = actions.size > 0 && toolDoes.length > 0 && !toolDoes.some((action) => actions.has(action));
        // A tool whose name the request spells out whole ("create" "post" on LinkedIn) beats one that only shares a word with it (create_article_post).
        const nameTerms = nameTermsOf.get(tool.name) ?? [];
        const coverage = nameTerms.length ? nameTerms.filter((term) => asked.has(term)).length / nameTerms.length : 0;
        // A request that names a platform ("in Slack") wants a tool of it, or one that mentions it, over the others.
        const otherPlatform = platforms.size > 0 && !mentionsAny(tool, result.match, platforms);
        const factor = (otherAction ? OTHER_ACTION_FACTOR : 1) * (otherPlatform ? OTHER_PLATFORM_FACTOR : 1) * (1 + NAME_COVERAGE_BONUS * coverage);
        scored.push({ tool, score: result.score * factor, terms: Object.keys(result.match) });
      }
      scored.sort((a, b) => b.score - a.score || compareNames(a.tool.name, b.tool.name));
      return scored.slice(0, limit).map(({ tool, score, terms }) => ({
        tool,
        score,
        matched: terms.map((term) => ({ word: wordOf.get(term) ?? term, fields: fieldsWith(tool, term) })).sort((a, b) => compareNames(a.word, b.word)),
      }));
    },
  };
}

/** Whether a tool is on one of the named platforms, or names one of them itself (an MCP server's tool that says "in Slack"). */
function mentionsAny(tool: ToolInfo, match: MatchInfo, platforms: ReadonlyMap<string, string>): boolean {
  if (tool.platform && platforms.has(tool.platform)) return true;
  for (const term of platforms.values()) if (Object.hasOwn(match, term)) return true;
  return false;
}

/** Code-unit order, the same in every runtime and locale. */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
