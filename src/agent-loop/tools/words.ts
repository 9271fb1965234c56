import { stemmer } from "stemmer";

/**
 * Words that say nothing about which tool is meant. Conversation fillers ("go ahead", "thanks",
 * "please") are here too: the ranking reads whole conversations, not just requests.
 */
const STOP_WORDS = new Set(
  (
    "a an the and or but if then else for to of in on at by with from into onto about as is are was were be been being do does did done have has had " +
    "i me my we our us you your it its this that these those he she him her his they them their can could would should will shall may might must " +
    "just some any all each every no not so than too very what which who whom how why when where there here up down out over again further once " +
    "many much also only please thanks thank ok okay yes yeah sure go ahead let lets want need like via using use one"
  ).split(" "),
);

/** Words shorter than this are kept as they are: Porter's rules mangle them ("sms" → "sm"). */
const MIN_STEMMED_LENGTH = 4;

/** Longest word kept: longer runs are identifiers or noise, and would only cost time. */
const MAX_WORD_LENGTH = 40;

const OTHER = 0;
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;

function kindOf(code: number): number {
  if (code >= 97 && code <= 122) return LOWER;
  if (code >= 65 && code <= 90) return UPPER;
  if (code >= 48 && code <= 57) return DIGIT;
  return OTHER;
}

/**
 * Lower-case words of a text, split on anything that is not an ASCII letter or digit. With
 * `identifier`, also at camelCase humps ("sendEmail" → send, email; "HTTPRequest" → http,
 * request), so names in snake_case and camelCase meet the words people write; prose keeps
 * product names whole ("HubSpot" → hubspot, as in the tool name hubspot_create_contact).
 * One pass, no regular expression.
 */
export function wordsOf(text: string, identifier = false): string[] {
  const words: string[] = [];
  let start = -1;
  const flush = (end: number) => {
    if (start >= 0 && end - start <= MAX_WORD_LENGTH) words.push(text.slice(start, end).toLowerCase());
    start = -1;
  };
  for (let i = 0; i < text.length; i++) {
    const kind = kindOf(text.charCodeAt(i));
    if (kind === OTHER) {
      flush(i);
      continue;
    }
    if (identifier && start >= 0 && kind === UPPER) {
      const previous = kindOf(text.charCodeAt(i - 1));
      const next = i + 1 < text.length ? kindOf(text.charCodeAt(i + 1)) : OTHER;
      // "sendEmail": a capital after a small letter starts a word; "HTTPRequest": so does the last capital of a run before a small letter.
      if (previous === LOWER || previous === DIGIT || (previous === UPPER && next === LOWER)) flush(i);
    }
    if (start < 0) start = i;
  }
  flush(text.length);
  return words;
}

/** The term a lower-case word is indexed and searched as: none for a stop word or a single letter, else its stem ("sending" → "send"). */
export function termOf(word: string): string | null {
  if (word.length < 2 || STOP_WORDS.has(word)) return null;
  if (word.length < MIN_STEMMED_LENGTH) return word;
  let term = stems.get(word);
  if (term === undefined) {
    // Porter's rules are a chain of suffix tests: a catalog repeats the same few thousand words, so each is stemmed once per isolate.
    if (stems.size >= MAX_CACHED_STEMS) stems.clear();
    term = stemmer(word);
    stems.set(word, term);
  }
  return term;
}

const MAX_CACHED_STEMS = 50_000;
const stems = new Map<string, string>();
