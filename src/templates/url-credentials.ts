import { findPlaceholders } from "../lib/template";
import { holdsNoLiteral, isSecretQueryName, withoutPlaceholders } from "./secret-patterns";

/** Characters that end a web address written inside longer text. */
const ENDS_ADDRESS = new Set([" ", "\t", "\n", "\r", '"', "'", "<", ">", "`"]);
const ENDS_AUTHORITY = new Set(["/", "?", "#", ...ENDS_ADDRESS]);

interface Param {
  /** The character before it: `?` or `#` when it opens a query or fragment, else `&` (or a `?` inside a value). */
  separator: string;
  opens: boolean;
  text: string;
}

/**
 * Takes credentials out of every web address in a text, wherever it sits (a whole `url`
 * argument, `{{base_url}}/path?token=…`, a link inside a message, an address inside another's
 * query): the `user:password@` of an authority, and query or fragment parameters whose name
 * looks like a credential's. What stays is kept as written, so `{{placeholders}}` are not
 * percent-encoded, and parameters whose value is only placeholders stay too
 * (`?api_key={{api_key}}` holds no secret). Two left-to-right passes; placeholders are read as
 * a whole.
 */
export function stripUrlCredentials(text: string): string {
  const withoutUserinfo = text.includes("@") ? stripUserinfo(text) : text;
  return withoutUserinfo.includes("=") ? stripSecretParams(withoutUserinfo) : withoutUserinfo;
}

const placeholderSpans = (text: string) => new Map(findPlaceholders(text).map((found) => [found.start, found.end] as const));

/** Every `scheme://user:password@` loses its `user:password@`, unless that is only placeholders. */
function stripUserinfo(text: string): string {
  return rewriteOutsidePlaceholders(text, (i, spans) => {
    if (!text.startsWith("://", i)) return undefined;
    const start = i + 3;
    const at = userinfoEnd(text, start, spans);
    const credentials = at >= 0 && withoutPlaceholders(text.slice(start, at)).replaceAll(":", "").trim() !== "";
    return { next: at >= 0 ? at + 1 : start, replace: credentials ? { from: start, to: at + 1, with: "" } : undefined };
  });
}

/** Every query or fragment (from a `?` or `#` to the end of its address) loses its credential-named parameters. */
function stripSecretParams(text: string): string {
  return rewriteOutsidePlaceholders(text, (i, spans) => {
    if (text[i] !== "?" && text[i] !== "#") return undefined;
    const { params, end } = readParams(text, i, spans);
    const cleaned = withoutSecretParams(params);
    return { next: Math.max(end, i + 1), replace: cleaned !== null ? { from: i, to: end, with: cleaned } : undefined };
  });
}

interface Rewrite {
  /** Where the scan goes on. */
  next: number;
  /** Text to put in place of `text[from, to)`, if any. */
  replace?: { from: number; to: number; with: string };
}

/**
 * One linear pass over `text` that never looks inside placeholders: at each other position `edit`
 * may replace a stretch and say where to go on. Unchanged text is returned as it was.
 */
function rewriteOutsidePlaceholders(text: string, edit: (i: number, spans: Map<number, number>) => Rewrite | undefined): string {
  const spans = placeholderSpans(text);
  const parts: string[] = [];
  let copiedUpTo = 0;
  let i = 0;
  while (i < text.length) {
    const span = spans.get(i);
    if (span !== undefined) {
      i = span;
      continue;
    }
    const change = edit(i, spans);
    if (!change) {
      i++;
      continue;
    }
    if (change.replace) {
      parts.push(text.slice(copiedUpTo, change.replace.from), change.replace.with);
      copiedUpTo = change.replace.to;
    }
    i = change.next;
  }
  if (copiedUpTo === 0) return text;
  parts.push(text.slice(copiedUpTo));
  return parts.join("");
}

/** Where the `@` that ends an authority's userinfo is (the last one before the host), or -1. */
function userinfoEnd(text: string, start: number, spans: Map<number, number>): number {
  let at = -1;
  let j = start;
  while (j < text.length) {
    const span = spans.get(j);
    if (span !== undefined) {
      j = span;
      continue;
    }
    const ch = text[j]!;
    if (ENDS_AUTHORITY.has(ch)) break;
    if (ch === "@") at = j;
    j++;
  }
  return at;
}

/** The parameters from a `?` or `#` on, each with the separator before it, up to the address's end. */
function readParams(text: string, open: number, spans: Map<number, number>): { params: Param[]; end: number } {
  const params: Param[] = [];
  let separator = text[open]!;
  let start = open + 1;
  let j = start;
  for (;;) {
    const span = spans.get(j);
    if (span !== undefined) {
      j = span;
      continue;
    }
    const ch = text[j];
    if (ch === undefined || ENDS_ADDRESS.has(ch) || ch === "&" || ch === "?" || ch === "#") {
      params.push({ separator, opens: params.length === 0 || separator === "#", text: text.slice(start, j) });
      if (ch === undefined || ENDS_ADDRESS.has(ch)) return { params, end: j };
      separator = ch;
      start = j + 1;
    }
    j++;
  }
}

/**
 * The parameters without credential-named ones, rejoined; null when nothing was dropped. A
 * dropped first parameter of a query or fragment hands its `?` or `#` to the next one kept, so
 * what stays keeps its place in the query or in the fragment.
 */
function withoutSecretParams(params: Param[]): string | null {
  let dropped = false;
  let opener: string | null = null;
  let kept = "";
  for (const param of params) {
    const equals = param.text.indexOf("=");
    const secret = equals > 0 && isSecretQueryName(decodedName(param.text.slice(0, equals))) && !holdsNoLiteral(param.text.slice(equals + 1));
    if (secret) {
      dropped = true;
      if (param.opens) opener = param.separator;
      continue;
    }
    kept += (param.separator === "&" && opener !== null ? opener : param.separator) + param.text;
    opener = null;
  }
  return dropped ? kept : null;
}

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replaceAll("+", " "));
  } catch {
    return name;
  }
}
