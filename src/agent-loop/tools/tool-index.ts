import MiniSearch, { type Query } from "minisearch";
import type { ToolInfo } from "../../tools/types";
import { ACTION_VERBS, type Action, OTHER_ACTION_FACTOR, actionsOfWord, joinPhrasalVerbs, requestedActions, toolActions } from "./actions";
import { catalogFingerprint } from "./fingerprint";
import { RELATED_WEIGHT, relatedWords } from "./related-words";
import { indexedDescription, nameWords, parameterNames } from "./tool-fields";
import { termOf, wordsOf } from "./words";

/** A text to rank against, and how much its words count (the newest message more than older ones). */
export interface WeightedText {
  text: string;
  weight: number;
}

/** A query word that matched a tool, and in which of its fields. */
export interface MatchedWord {
  word: string;
  fields: IndexedField[];
}

export interface RankedTool {
  tool: ToolInfo;
  /** BM25+ over the fields, boosted per field and per text; higher is better, comparable within one ranking. */
  score: number;
  matched: MatchedWord[];
}

export type IndexedField = "name" | "platform" | "title" | "description" | "parameters";

/** A lexical index over one catalog version: built once (see `toolIndexFor`), then read by every request. */
export interface ToolIndex {
  readonly fingerprint: string;
  /** The tools it holds: the available ones of the catalog it was built from, by name. */
  readonly tools: ReadonlyMap<string, ToolInfo>;
  /** The tools that match, best first, ties by name; at most `limit`. */
  rank(query: string | readonly WeightedText[], limit: number): RankedTool[];
}

/**
 * How much a match in each field counts. A tool's name and title say what it does; its platform
 * is how people name where it acts ("in HubSpot"); the description and parameters add detail.
 */
export const FIELD_BOOSTS: Record<IndexedField, number> = { name: 3, title: 2, platform: 2, description: 1, parameters: 1 };

const FIELDS = Object.keys(FIELD_BOOSTS) as IndexedField[];

/** Distinct terms taken from one text of a query: a pasted document must not turn one ranking into thousands of lookups. */
const MAX_TERMS_PER_TEXT = 64;

/** Characters of one query text that are read. */
const MAX_QUERY_CHARS = 4_000;

function fieldText(tool: ToolInfo, field: string): string {
  switch (field) {
    case "name":
      return nameWords(tool);
    case "platform":
      return tool.platform ?? "";
    case "title":
      return tool.title;
    case "description":
      return indexedDescription(tool);
    case "parameters":
      return parameterNames(tool).join(" ");
    default:
      return "";
  }
}

/** Terms the index keeps for one word: none for stop words, else its stem. */
const processTerm = (word: string) => termOf(word);

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
    // The id is the whole name; the "name" field holds only its meaningful words (see nameWords).
    idField: "id",
    fields: FIELDS,
    extractField: (tool, field) => (field === "id" ? tool.name : fieldText(tool, field)),
    // Names, parameters and platform ids are identifiers (split at camelCase humps too); the rest is prose.
    tokenize: (text, field) => wordsOf(text, field === "name" || field === "parameters" || field === "platform"),
    processTerm,
  });
  search.addAll([...byName.values()]);
  const actionsOf = new Map<string, readonly Action[]>();
  for (const tool of byName.values()) actionsOf.set(tool.name, toolActions(tool));

  return {
    fingerprint,
    tools: byName,
    rank(query, limit) {
      const texts = typeof query === "string" ? [{ text: query, weight: 1 }] : query;
      const { tree, wordOf, actions } = queryTree(texts);
      if (tree.queries.length === 0 || limit <= 0) return [];
      const results = search.search(tree, {
        boost: FIELD_BOOSTS,
        // The tree's texts are terms already (see queryTree): split on spaces, keep as they are.
        tokenize: (text) => text.split(" "),
        processTerm: (term) => term,
      });
      const ranked: RankedTool[] = [];
      for (const result of results) {
        const tool = byName.get(result.id as string);
        if (!tool) continue;
        const matched = Object.entries(result.match)
          .map(([term, fields]) => ({ word: wordOf.get(term) ?? term, fields: fields as IndexedField[] }))
          .sort((a, b) => compareNames(a.word, b.word));
        // A tool whose verb is none of those the request uses ranks lower (see actions.ts).
        const toolDoes = actionsOf.get(tool.name) ?? [];
        const otherAction = actions.size > 0 && toolDoes.length > 0 && !toolDoes.some((action) => actions.has(action));
        ranked.push({ tool, score: otherAction ? result.score * OTHER_ACTION_FACTOR : result.score, matched });
      }
      ranked.sort((a, b) => b.score - a.score || compareNames(a.tool.name, b.tool.name));
      return ranked.slice(0, limit);
    },
  };
}

/**
 * One OR query per text, each term weighted by its text's weight, and one for the words related
 * to them (related-words.ts, and the usual tool verbs of the actions it asks for: "open" → create)
 * at a lower weight. Terms are processed here (stop words, stems,
 * repeats within a text dropped), and the first word seen for each term is kept to explain a
 * match in the user's words ("sending", not "send"). The actions asked for come from every text.
 */
function queryTree(texts: readonly WeightedText[]): { tree: Query & { queries: Query[] }; wordOf: Map<string, string>; actions: Set<Action> } {
  const wordOf = new Map<string, string>();
  const queries: Query[] = [];
  const words: string[] = [];
  for (const { text, weight } of texts) {
    if (!(weight > 0)) continue;
    const terms = new Set<string>();
    const related = new Set<string>();
    for (const word of joinPhrasalVerbs(wordsOf(text.length > MAX_QUERY_CHARS ? text.slice(0, MAX_QUERY_CHARS) : text))) {
      if (terms.size >= MAX_TERMS_PER_TEXT) break;
      words.push(word);
      const term = termOf(word);
      if (!term || terms.has(term)) continue;
      terms.add(term);
      if (!wordOf.has(term)) wordOf.set(term, word);
      const verbs = actionsOfWord(word).flatMap((action) => ACTION_VERBS[action]);
      for (const other of [...relatedWords(word), ...verbs]) {
        const relatedTerm = termOf(other);
        if (relatedTerm) related.add(relatedTerm);
        if (relatedTerm && !wordOf.has(relatedTerm)) wordOf.set(relatedTerm, `${other} (for ${word})`);
      }
    }
    for (const term of terms) related.delete(term);
    if (terms.size) queries.push({ queries: [[...terms].join(" ")], combineWith: "OR", boostTerm: () => weight });
    if (related.size) queries.push({ queries: [[...related].join(" ")], combineWith: "OR", boostTerm: () => weight * RELATED_WEIGHT });
  }
  return { tree: { queries, combineWith: "OR" }, wordOf, actions: requestedActions(words) };
}

/** Code-unit order, the same in every runtime and locale. */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
