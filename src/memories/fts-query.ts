/**
 * Turns what a person or a model typed into an FTS5 query that cannot fail or run long.
 *
 * FTS5 has its own query language (`"`, `*`, `^`, `-`, `:`, `+`, parentheses, AND, OR, NOT,
 * NEAR): typed as is, a stray quote is a syntax error and `a*` expands to every word starting
 * with "a". So nothing typed reaches FTS5 as syntax: the text is cut into words (letters, digits
 * and the marks that belong to them, as FTS5's unicode61 tokenizer cuts it), each word becomes a
 * quoted string (a word such as OR or NEAR is then only a word), and the query holds at most
 * MAX_QUERY_TERMS of them, each at most MAX_TERM_CHARS long.
 */

export const MAX_QUERY_TERMS = 16;
const MAX_TERM_CHARS = 64;
/** Only this much of the text is read: a long chat message is searched by its beginning. */
const MAX_SCANNED_CHARS = 4_000;
/**
 * A word: starts with a letter, digit or private-use character (the tokenizer's token
 * characters) and goes on through those and combining marks. No nested or alternative
 * quantifiers, so matching is linear in the text's length.
 */
const WORD = /[\p{L}\p{N}\p{Co}][\p{L}\p{N}\p{M}\p{Co}]*/gu;

/**
 * English words nearly every text holds. Searches are OR-ed and ranked, so "the" in a chat
 * message would pull in any memory at all: such words are dropped, unless they are all there is.
 */
const STOP_WORDS = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have he her his how i if in is it its me my not of on or our " +
    "please s she should so t that the their them these they this those to us was we were what when which who will with would you your"
  ).split(" "),
);

/**
 * The distinct words of `text` that carry meaning, at most MAX_QUERY_TERMS. When there are more,
 * the longest are kept: in a chat message those are "invoice" and "Anna", not "up" and "go".
 */
export function queryTerms(text: string): string[] {
  const terms = new Map<string, string>();
  for (const [word] of text.slice(0, MAX_SCANNED_CHARS).matchAll(WORD)) {
    // Cut by code points, so no half of a surrogate pair is left at the end.
    const term = word.length > MAX_TERM_CHARS ? Array.from(word).slice(0, MAX_TERM_CHARS).join("") : word;
    const folded = term.toLowerCase();
    if (!terms.has(folded)) terms.set(folded, term);
  }
  const meaningful = [...terms].filter(([folded]) => !STOP_WORDS.has(folded)).map(([, term]) => term);
  const distinct = meaningful.length > 0 ? meaningful : [...terms.values()];
  if (distinct.length <= MAX_QUERY_TERMS) return distinct;
  // Array.prototype.sort is stable: among words of one length, the first ones stay.
  return distinct.sort((a, b) => b.length - a.length).slice(0, MAX_QUERY_TERMS);
}

/** An FTS5 string literal: inside double quotes every character is literal, a quote is doubled. */
const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;

/**
 * The MATCH expression for one agent's memories holding any (`OR`, for ranked searches) or all
 * (`AND`, for a list's filter) of `terms`. The agent's id is matched as a phrase in its own
 * column, so FTS5 reads only that agent's entries. `terms` must not be empty.
 */
export function memoryMatch(agentId: string, terms: readonly string[], join: "OR" | "AND"): string {
  return `agent_id : ${quoted(agentId)} AND text : (${terms.map(quoted).join(` ${join} `)})`;
}
