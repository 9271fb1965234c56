import { type SQL, sql } from "drizzle-orm";
import { executions } from "../db/schema";

/**
 * `q` of GET /v1/executions, over the FTS5 index `executions_fts` (migration 0045: a run's input
 * and error, and its owner's id), which drizzle-kit cannot declare. Nothing typed reaches FTS5 as
 * syntax: the text is cut into words as the unicode61 tokenizer cuts it, each word is quoted
 * (OR, NEAR, `"` and `*` are then only text) and matched as a prefix, all of them required.
 */
const MAX_TERMS = 16;
const MAX_TERM_CHARS = 64;
/** Letters, digits and private-use characters start a token; combining marks belong to it. */
const WORD = /[\p{L}\p{N}\p{Co}][\p{L}\p{N}\p{M}\p{Co}]*/gu;

/** The distinct words of `q` (at most MAX_TERMS, each cut to MAX_TERM_CHARS); none for text with no word. */
export function searchTerms(q: string): string[] {
  const terms = new Map<string, string>();
  for (const [word] of q.matchAll(WORD)) {
    const term = Array.from(word).slice(0, MAX_TERM_CHARS).join("");
    terms.set(term.toLowerCase(), term);
    if (terms.size === MAX_TERMS) break;
  }
  return [...terms.values()];
}

const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;

/**
 * The caller's runs whose input or error holds every term (a word starting with it: "inv" finds
 * "invoice"). The owner's id is matched in its own column, so FTS5 reads only that user's entries.
 */
export function runsMatching(userId: number, terms: readonly string[]): SQL {
  const expression = `user_id : ${quoted(String(userId))} AND {input error_message} : (${terms.map((term) => `${quoted(term)} *`).join(" AND ")})`;
  return sql`${executions}.rowid in (select rowid from executions_fts where executions_fts match ${expression})`;
}
