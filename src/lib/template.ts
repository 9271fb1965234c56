import { getPath } from "./json-path";
import { MAX_NESTING, nestingDepth, tooDeepMessage } from "./json-depth";

/** A substitution may add at most this much text, so a template cannot blow up memory. */
export const MAX_SUBSTITUTED_CHARS = 1024 * 1024;

export interface Substitution {
  value: unknown;
  /** Each placeholder that was replaced, as written in the template (`{{name}}`). */
  substitutions: string[];
}

/**
 * Thrown instead of building a value the hub could not hold or serialise: more than
 * MAX_SUBSTITUTED_CHARS of substituted text, or nesting deeper than MAX_NESTING levels.
 */
export class SubstitutionTooLarge extends Error {}

const tooLarge = (limit: number) => new SubstitutionTooLarge(`The substituted value is larger than ${Math.round(limit / 1024)} KiB.`);

/**
 * Replaces `{{ name }}` / `{{contact.emails.0}}` placeholders throughout a JSON value (whitespace
 * inside the braces is ignored). A string that is exactly one placeholder takes the referenced
 * value with its own type; placeholders inside longer strings are stringified (objects as JSON).
 * Unknown names are left as written and not reported.
 *
 * Placeholders are found by a single left-to-right scan, never a backtracking regex: the work is
 * linear in the template's length whatever it holds (100,000 `{` included), the text added is
 * capped at `maxChars`, and neither the template nor what is put into it may nest deeper than
 * MAX_NESTING levels (the walk and later serialisation recurse).
 */
export function substitute(value: unknown, context: unknown, maxChars = MAX_SUBSTITUTED_CHARS): Substitution {
  const substitutions: string[] = [];
  const budget = { left: maxChars, limit: maxChars };
  const measured = new Map<string, Measure>();
  const walk = (node: unknown, depth: number): unknown => {
    if (typeof node === "string") return substituteString(node, depth, context, substitutions, budget, measured);
    if (node === null || typeof node !== "object") return node;
    if (depth >= MAX_NESTING) throw new SubstitutionTooLarge(tooDeepMessage());
    if (Array.isArray(node)) return node.map((child) => walk(child, depth + 1));
    return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, walk(child, depth + 1)]));
  };
  return { value: walk(value, 0), substitutions };
}

/** One placeholder found in a text: where it is and the path it names. */
export interface Placeholder {
  start: number;
  end: number;
  path: string;
}

const isPathChar = (code: number) =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 36 || code === 46 || code === 45;
const isPathStart = (code: number) => isPathChar(code) && code !== 46 && code !== 45;
const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 13 || code === 11 || code === 12;

/**
 * Every `{{ path }}` in `text`, left to right. Each character is looked at a bounded number of
 * times: a scan that fails stops at a character that cannot be part of a placeholder's inside,
 * and the next candidate starts after it.
 */
export function findPlaceholders(text: string): Placeholder[] {
  const found: Placeholder[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf("{{", from);
    if (open < 0) return found;
    let i = open + 2;
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    const pathStart = i;
    if (i < text.length && isPathStart(text.charCodeAt(i))) {
      while (i < text.length && isPathChar(text.charCodeAt(i))) i++;
    }
    const pathEnd = i;
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    if (pathEnd > pathStart && text.startsWith("}}", i)) {
      found.push({ start: open, end: i + 2, path: text.slice(pathStart, pathEnd) });
      from = i + 2;
    } else {
      // `{{{name}}`: the placeholder may begin at the next brace.
      from = text.charCodeAt(open + 2) === 123 ? open + 1 : Math.max(open + 1, i);
    }
  }
}

function substituteString(
  text: string,
  depth: number,
  context: unknown,
  substitutions: string[],
  budget: { left: number; limit: number },
  measured: Map<string, Measure>,
): unknown {
  const placeholders = findPlaceholders(text);
  if (placeholders.length === 0) return text;
  const only = placeholders[0]!;
  if (placeholders.length === 1 && only.start === 0 && only.end === text.length) {
    const hit = getPath(context, only.path);
    if (!hit.found) return text;
    const { size, nesting } = measure(only.path, hit.value, measured);
    if (depth + nesting > MAX_NESTING) throw new SubstitutionTooLarge(tooDeepMessage());
    spend(budget, size);
    substitutions.push(`{{${only.path}}}`);
    return hit.value;
  }
  const parts: string[] = [];
  let last = 0;
  for (const placeholder of placeholders) {
    const hit = getPath(context, placeholder.path);
    if (!hit.found) continue;
    if (measure(placeholder.path, hit.value, measured).nesting > MAX_NESTING) throw new SubstitutionTooLarge(tooDeepMessage());
    const replacement = stringify(hit.value);
    spend(budget, replacement.length);
    parts.push(text.slice(last, placeholder.start), replacement);
    last = placeholder.end;
    substitutions.push(`{{${placeholder.path}}}`);
  }
  parts.push(text.slice(last));
  return parts.join("");
}

function spend(budget: { left: number; limit: number }, chars: number) {
  budget.left -= chars;
  if (budget.left < 0) throw tooLarge(budget.limit);
}

/** What a value put in whole costs: its serialised size and how deep it nests. */
interface Measure {
  size: number;
  /** Exact up to MAX_NESTING; anything above means "too deep to place". */
  nesting: number;
}

/** Measured once per path: a value placed many times is walked once. */
function measure(path: string, value: unknown, measured: Map<string, Measure>): Measure {
  let result = measured.get(path);
  if (!result) {
    const nesting = nestingDepth(value);
    // Sized only once known to be shallow enough for JSON.stringify to finish.
    const size =
      typeof value === "string"
        ? value.length
        : value !== null && typeof value === "object"
          ? nesting > MAX_NESTING
            ? 0
            : (JSON.stringify(value)?.length ?? 0)
          : 8;
    result = { size, nesting };
    measured.set(path, result);
  }
  return result;
}

export function stringify(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}
