import type { Query } from "minisearch";
import { ACTION_VERBS, type Action, actionsOfWord, isToolVerb, joinPhrasalVerbs, requestedActions } from "./actions";
import { RELATED_WEIGHT, relatedWords } from "./related-words";
import { termOf, wordsOf } from "./words";

/** A text to rank against, and how much its words count (the newest message more than older ones). */
export interface WeightedText {
  text: string;
  weight: number;
}

/** A query as the index runs it, and what the ranking needs to know about it. */
export interface ParsedQuery {
  tree: Query & { queries: Query[] };
  /** The word of the request behind each term, to explain a match in the user's words. */
  wordOf: Map<string, string>;
  /** The kinds of action the request asks for (actions.ts). */
  actions: Set<Action>;
  /** Every term searched for, related ones included. */
  terms: Set<string>;
  /** The request's lower-case words. */
  words: Set<string>;
}

/** Distinct terms taken from one text of a query: a pasted document must not turn one ranking into thousands of lookups. */
const MAX_TERMS_PER_TEXT = 64;

/** Characters of one query text that are read. */
const MAX_QUERY_CHARS = 4_000;

/**
 * One OR query per text, each term weighted by its text's weight, and one for the words related
 * to them (related-words.ts, and the usual tool verbs of the actions it asks for: "open" →
 * create) at a lower weight. Terms are processed here (stop words, stems, repeats within a text
 * dropped), and the first word seen for each term is kept to explain a match in the user's words
 * ("sending", not "send"). The actions asked for come from every text.
 */
export function parseQuery(texts: readonly WeightedText[]): ParsedQuery {
  const wordOf = new Map<string, string>();
  const queries: Query[] = [];
  const words: string[] = [];
  const all = new Set<string>();
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
      // A word tools use as their own verb ("add", "send") already matches them; others ("open", "draft", "post") look for the usual one too.
      const verbs = isToolVerb(word) ? [] : actionsOfWord(word).flatMap((action) => ACTION_VERBS[action]);
      for (const other of [...relatedWords(word), ...verbs]) {
        const relatedTerm = termOf(other);
        if (relatedTerm) related.add(relatedTerm);
        if (relatedTerm && !wordOf.has(relatedTerm)) wordOf.set(relatedTerm, `${other} (for ${word})`);
      }
    }
    for (const term of terms) related.delete(term);
    for (const term of [...terms, ...related]) all.add(term);
    if (terms.size) queries.push({ queries: [[...terms].join(" ")], combineWith: "OR", boostTerm: () => weight });
    if (related.size) queries.push({ queries: [[...related].join(" ")], combineWith: "OR", boostTerm: () => weight * RELATED_WEIGHT });
  }
  return { tree: { queries, combineWith: "OR" }, wordOf, actions: requestedActions(words), terms: all, words: new Set(words) };
}

/**
 * The platforms a request names: those whose id's first word it uses ("slack"; "google" for
 * google_sheets and google_analytics alike; "microsoft" for microsoft_teams, where "teams" alone
 * is an everyday word).
 */
export function namedPlatforms(words: ReadonlySet<string>, platformIds: ReadonlySet<string>): Map<string, string> {
  const named = new Map<string, string>();
  for (const id of platformIds) {
    const underscore = id.indexOf("_");
    const word = underscore > 0 ? id.slice(0, underscore) : id;
    const term = words.has(word) ? termOf(word) : null;
    if (term) named.set(id, term);
  }
  return named;
}
