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

/** `name: value`, `name = value`, with the name's underscores or dashes also written as spaces. */
function namedValue(message: string, name: string): string | undefined {
  // Names come from tool schemas (an MCP server's among them): escaped, never read as a pattern.
  const spelled = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/[_-]/g, "[ _-]?");
  const pattern = new RegExp(`(?:^|[\\s,;(])${spelled}\\s*[:=]\\s*(?:"([^"]*)"|'([^']*)'|([^,;\\n]+))`, "i");
  const match = message.match(pattern);
  if (!match) return undefined;
  if (match[1] !== undefined || match[2] !== undefined) return match[1] ?? match[2];
  // Unquoted values end at the sentence: its closing punctuation is not part of them.
  return (match[3] ?? "").trim().replace(/[.!?]+$/, "");
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
      return raw.split(/\s*,\s*|\s+and\s+/).filter(Boolean);
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
