import type { JsonSchema } from "../../tools/types";

export type FillResult = { ok: true; args: Record<string, unknown> } | { ok: false; missing: string[]; args: Record<string, unknown> };

/**
 * Fills a tool's arguments from a plain message, without guessing: from a JSON object in the
 * message, from `name: value` or `name=value` pairs, and, for a single missing required text
 * field, from the message's quoted text. Values are coerced to the schema's types.
 */
export function fillArguments(message: string, schema: JsonSchema): FillResult {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = (schema.required ?? []) as string[];
  const args: Record<string, unknown> = { ...jsonObjectIn(message) };

  for (const [name, property] of Object.entries(properties)) {
    if (args[name] !== undefined) continue;
    const raw = namedValue(message, name);
    if (raw !== undefined) {
      const value = coerce(raw, property);
      if (value !== undefined) args[name] = value;
    }
  }

  const missing = required.filter((name) => args[name] === undefined);
  if (missing.length === 1 && typeOf(properties[missing[0]!]) === "string") {
    const text = firstQuoted(message);
    if (text) {
      args[missing[0]!] = text;
      missing.pop();
    }
  }
  return missing.length ? { ok: false, missing, args } : { ok: true, args };
}

function jsonObjectIn(message: string): Record<string, unknown> {
  const start = message.indexOf("{");
  const end = message.lastIndexOf("}");
  if (start < 0 || end <= start) return {};
  try {
    const parsed = JSON.parse(message.slice(start, end + 1));
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

const QUOTES: [open: string, close: string][] = [
  ['"', '"'],
  ["“", "”"],
  ["'", "'"],
];

/**
 * The first non-empty quoted text in the message ("…", “…” or '…'), found with indexOf rather
 * than a regex that would rescan the rest of the message from every unmatched opening quote.
 */
export function firstQuoted(message: string): string | undefined {
  let best: { start: number; text: string } | undefined;
  for (const [open, close] of QUOTES) {
    let from = 0;
    for (;;) {
      const start = message.indexOf(open, from);
      if (start < 0 || (best && start >= best.start)) break;
      const end = message.indexOf(close, start + 1);
      if (end < 0) break; // no closing quote after this one, so none after a later one either
      if (end > start + 1) {
        best = { start, text: message.slice(start + 1, end) };
        break;
      }
      from = start + 1; // "" is empty: the closing quote may open the next one
    }
  }
  return best?.text;
}

/** Longer property names are not looked for in the text (a JSON object in the message still fills them). */
const MAX_NAME_CHARS = 64;

/**
 * `name: value`, `name = value`, with the name's underscores or dashes also written as spaces;
 * the first such pair wins. A scan rather than a pattern built from the name: names come from
 * tool schemas (an MCP server's among them), and each place the name could start costs at most
 * the name's length, so a long message costs linear time.
 */
function namedValue(message: string, name: string): string | undefined {
  if (name.length === 0 || name.length > MAX_NAME_CHARS) return undefined;
  for (let start = 0; start < message.length; start++) {
    if (start > 0 && !isNameBoundary(message[start - 1]!)) continue;
    const nameEnd = matchName(message, start, name);
    if (nameEnd < 0) continue;
    const sign = skipSpaces(message, nameEnd);
    if (message[sign] !== ":" && message[sign] !== "=") continue;
    const value = valueAt(message, skipSpaces(message, sign + 1));
    if (value !== undefined) return value;
  }
  return undefined;
}

const isSpace = (ch: string) => /\s/.test(ch);
const isNameBoundary = (ch: string) => ch === "," || ch === ";" || ch === "(" || isSpace(ch);
const isNameSeparator = (ch: string | undefined) => ch === " " || ch === "_" || ch === "-";

function skipSpaces(text: string, from: number): number {
  let i = from;
  while (i < text.length && isSpace(text[i]!)) i++;
  return i;
}

/** Where `name` ends if it is written at `start` (any letter case; `_`, `-` or space optional between words), else -1. */
function matchName(message: string, start: number, name: string): number {
  let i = start;
  for (const ch of name) {
    if (isNameSeparator(ch)) {
      if (isNameSeparator(message[i])) i++;
      continue;
    }
    if (i >= message.length || message[i]!.toLowerCase() !== ch.toLowerCase()) return -1;
    i++;
  }
  return i;
}

/** The value at `start`: a quoted text, or what runs up to the next comma, semicolon or line end. */
function valueAt(message: string, start: number): string | undefined {
  const quote = message[start];
  if (quote === '"' || quote === "'") {
    const end = message.indexOf(quote, start + 1);
    if (end >= 0) return message.slice(start + 1, end);
  }
  let end = start;
  while (end < message.length && message[end] !== "," && message[end] !== ";" && message[end] !== "\n") end++;
  if (end === start) return undefined;
  // Unquoted values end at the sentence: its closing punctuation is not part of them.
  return withoutClosingPunctuation(message.slice(start, end).trim());
}

function withoutClosingPunctuation(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === "." || text[end - 1] === "!" || text[end - 1] === "?")) end--;
  return text.slice(0, end);
}

/** "a, b and c" → ["a", "b", "c"]: commas, and the word "and" between spaces, separate items. */
function listItems(raw: string): string[] {
  const items: string[] = [];
  for (const part of raw.split(",")) {
    // Words at even indexes, the whitespace runs between them at odd ones.
    const pieces = part.split(/(\s+)/);
    let item = "";
    for (let i = 0; i < pieces.length; i++) {
      if (pieces[i] === "and" && i > 0 && i < pieces.length - 1) {
        items.push(item.trim());
        item = "";
        i++; // the whitespace after "and"
      } else {
        item += pieces[i];
      }
    }
    items.push(item.trim());
  }
  return items.filter(Boolean);
}

function typeOf(schema: JsonSchema | undefined): string | undefined {
  const type = schema?.type;
  return Array.isArray(type) ? (type.find((t) => t !== "null") as string) : (type as string | undefined);
}

function coerce(raw: string, schema: JsonSchema): unknown {
  switch (typeOf(schema)) {
    case "number":
    case "integer": {
      const value = Number(raw);
      return Number.isFinite(value) ? value : undefined;
    }
    case "boolean":
      return /^(true|yes|1)$/i.test(raw) ? true : /^(false|no|0)$/i.test(raw) ? false : undefined;
    case "array":
      return listItems(raw);
    case "object":
      try {
        return JSON.parse(raw);
      } catch {
        return undefined;
      }
    default:
      return raw;
  }
}
