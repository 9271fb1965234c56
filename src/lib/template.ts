import { getPath } from "./json-path";
import { MAX_NESTING, nestingDepth, tooDeepMessage } from "./json-depth";

/** A substitution may add at most this much text, so a template cannot blow up memory. */
export const MAX_SUBSTITUTED_CHARS = 1024 * 1024;

export interface Substitution {
  value: unknown;
  /** Each placeholder that was replaced, as written in the template (`{{name}}`). */
  substitutions: string[];
  /** Each placeholder that had no value and no default (`{{name}}`), left as written. */
  missing: string[];
}

export interface SubstituteOptions {
  /** Cap on the text a substitution adds (default MAX_SUBSTITUTED_CHARS). */
  maxChars?: number;
  /** A placeholder with no value and no `| default:` throws PlaceholderMissing instead of staying as written. */
  strict?: boolean;
}

/**
 * Thrown instead of building a value the hub could not hold or serialise: more than
 * MAX_SUBSTITUTED_CHARS of substituted text, or nesting deeper than MAX_NESTING levels.
 */
export class SubstitutionTooLarge extends Error {}

/** A placeholder that cannot be applied as written (an unknown filter). */
export class PlaceholderInvalid extends Error {}

/** A strict substitution met a placeholder with no value and no default. */
export class PlaceholderMissing extends Error {
  constructor(readonly placeholder: string) {
    super(`${placeholder} has no value; add | default: "…" to allow that.`);
  }
}

const tooLarge = (limit: number) => new SubstitutionTooLarge(`The substituted value is larger than ${Math.round(limit / 1024)} KiB.`);

/**
 * Replaces `{{ name }}` / `{{contact.emails.0}}` placeholders throughout a JSON value (whitespace
 * inside the braces is ignored), with filters: `{{name | default: "there" | upper}}` (see
 * FILTERS). A string that is exactly one placeholder takes the referenced value with its own
 * type; placeholders inside longer strings are stringified (objects as JSON). A placeholder whose
 * value is absent, null or "" takes its `default`; an absent one with no default is reported in
 * `missing` and left as written, or, `strict`, throws PlaceholderMissing. `\{{name}}` is a
 * literal `{{name}}` (for a tool that fills its own template, like text_template).
 *
 * Placeholders are found by a single left-to-right scan, never a backtracking regex: the work is
 * linear in the template's length whatever it holds (100,000 `{` included), the text added is
 * capped at `maxChars`, and neither the template nor what is put into it may nest deeper than
 * MAX_NESTING levels (the walk and later serialisation recurse).
 */
export function substitute(value: unknown, context: unknown, options: SubstituteOptions = {}): Substitution {
  const substitutions: string[] = [];
  const missing: string[] = [];
  const maxChars = options.maxChars ?? MAX_SUBSTITUTED_CHARS;
  const state: WalkState = {
    context,
    substitutions,
    missing,
    strict: options.strict === true,
    budget: { left: maxChars, limit: maxChars },
    measured: new Map(),
  };
  const walk = (node: unknown, depth: number): unknown => {
    if (typeof node === "string") return substituteString(node, depth, state);
    if (node === null || typeof node !== "object") return node;
    if (depth >= MAX_NESTING) throw new SubstitutionTooLarge(tooDeepMessage());
    if (Array.isArray(node)) return node.map((child) => walk(child, depth + 1));
    return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, walk(child, depth + 1)]));
  };
  return { value: walk(value, 0), substitutions, missing: [...new Set(missing)] };
}

interface WalkState {
  context: unknown;
  substitutions: string[];
  missing: string[];
  strict: boolean;
  budget: { left: number; limit: number };
  measured: Map<string, Measure>;
}

/** One placeholder found in a text: where it is, the path it names and its filters. */
export interface Placeholder {
  start: number;
  end: number;
  path: string;
  filters: Filter[];
}

/** `| name` or `| name: argument` (a quoted string, or a bare word or number). */
export interface Filter {
  name: string;
  argument?: string;
}

const isPathChar = (code: number) =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 36 || code === 46 || code === 45;
const isPathStart = (code: number) => isPathChar(code) && code !== 46 && code !== 45;
const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 13 || code === 11 || code === 12;
const isNameChar = (code: number) => (code >= 97 && code <= 122) || code === 95;
/** A bare argument ends at a space, `|` or `}`. */
const isBareChar = (code: number) => !isSpace(code) && code !== 124 && code !== 125 && code !== 123;
/** Filters per placeholder: bounded, like everything a template holds. */
const MAX_FILTERS = 10;

/**
 * Every `{{ path | filter: "arg" | … }}` in `text`, left to right. Each character is looked at a
 * bounded number of times: a scan that fails stops at a character that cannot be part of a
 * placeholder's inside, and the next candidate starts after it.
 */
export function findPlaceholders(text: string): Placeholder[] {
  const found: Placeholder[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf("{{", from);
    if (open < 0) return found;
    let i = open + 2;
    const skipSpaces = () => {
      while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    };
    skipSpaces();
    const pathStart = i;
    if (i < text.length && isPathStart(text.charCodeAt(i))) {
      while (i < text.length && isPathChar(text.charCodeAt(i))) i++;
    }
    const pathEnd = i;
    skipSpaces();
    const filters: Filter[] = [];
    let valid = pathEnd > pathStart;
    while (valid && text.charCodeAt(i) === 124 /* | */ && filters.length < MAX_FILTERS) {
      i++;
      skipSpaces();
      const nameStart = i;
      while (i < text.length && isNameChar(text.charCodeAt(i))) i++;
      if (i === nameStart) {
        valid = false;
        break;
      }
      const filter: Filter = { name: text.slice(nameStart, i) };
      skipSpaces();
      if (text.charCodeAt(i) === 58 /* : */) {
        i++;
        skipSpaces();
        const argument = readArgument(text, i);
        if (!argument) {
          valid = false;
          break;
        }
        filter.argument = argument.value;
        i = argument.end;
        skipSpaces();
      }
      filters.push(filter);
    }
    if (valid && text.startsWith("}}", i)) {
      found.push({ start: open, end: i + 2, path: text.slice(pathStart, pathEnd), filters });
      from = i + 2;
    } else {
      // `{{{name}}`: the placeholder may begin at the next brace.
      from = text.charCodeAt(open + 2) === 123 ? open + 1 : Math.max(open + 1, i);
    }
  }
}

/** A quoted ("…" or '…', backslash escapes) or bare argument starting at `i`; null if none. */
function readArgument(text: string, i: number): { value: string; end: number } | null {
  const quote = text.charCodeAt(i);
  if (quote === 34 || quote === 39) {
    let value = "";
    for (let j = i + 1; j < text.length; j++) {
      const code = text.charCodeAt(j);
      if (code === 92 /* \ */ && j + 1 < text.length) {
        value += text[j + 1];
        j++;
      } else if (code === quote) return { value, end: j + 1 };
      else if (code === 10) return null;
      else value += text[j];
    }
    return null;
  }
  let j = i;
  while (j < text.length && isBareChar(text.charCodeAt(j))) j++;
  return j > i ? { value: text.slice(i, j), end: j } : null;
}

/** The filters a placeholder may use, by name. `default` is handled before them. */
const FILTERS: Record<string, (value: unknown, argument: string | undefined) => unknown> = {
  json: (value) => JSON.stringify(value ?? null),
  upper: (value) => stringify(value).toUpperCase(),
  lower: (value) => stringify(value).toLowerCase(),
  trim: (value) => stringify(value).trim(),
  urlencode: (value) => encodeURIComponent(stringify(value)),
  length: (value) =>
    Array.isArray(value) ? value.length : typeof value === "string" ? value.length : value && typeof value === "object" ? Object.keys(value).length : 0,
  first: (value) => (Array.isArray(value) ? value[0] : typeof value === "string" ? value.slice(0, 1) : value),
  last: (value) => (Array.isArray(value) ? value.at(-1) : typeof value === "string" ? value.slice(-1) : value),
  join: (value, argument) => (Array.isArray(value) ? value.map(stringify).join(argument ?? ", ") : stringify(value)),
};

export const FILTER_NAMES = ["default", ...Object.keys(FILTERS)];

/** A value counts as missing when it is absent, null or the empty string. */
const isMissing = (hit: { found: boolean; value: unknown }) => !hit.found || hit.value === null || hit.value === undefined || hit.value === "";

/**
 * The placeholder's value after its filters, or `undefined` when it has none (missing, no
 * default). An unknown filter is an error, so a typo is not silently ignored.
 */
function resolve(placeholder: Placeholder, context: unknown): { value: unknown } | undefined {
  const hit = getPath(context, placeholder.path);
  let value = hit.value;
  const fallback = placeholder.filters.find((filter) => filter.name === "default");
  // A default stands in for an absent, null or empty value; with none, only an absent one is
  // missing (an explicit null or "" is a value someone chose).
  if (isMissing(hit) && fallback) value = fallback.argument ?? "";
  else if (!hit.found) return undefined;
  for (const filter of placeholder.filters) {
    if (filter.name === "default") continue;
    const apply = FILTERS[filter.name];
    if (!apply) throw new PlaceholderInvalid(`${written(placeholder)} uses an unknown filter "${filter.name}"; use ${FILTER_NAMES.join(", ")}.`);
    value = apply(value, filter.argument);
  }
  return { value };
}

/** The placeholder as a person would write it, for messages. */
const written = (placeholder: Placeholder) =>
  `{{${placeholder.path}${placeholder.filters.map((f) => ` | ${f.name}${f.argument === undefined ? "" : `: ${JSON.stringify(f.argument)}`}`).join("")}}}`;

/** `\{{name}}`: a placeholder written to stay as it is (for a tool's own templates), without the backslash. */
const isEscaped = (text: string, placeholder: Placeholder) => placeholder.start > 0 && text.charCodeAt(placeholder.start - 1) === 92;

function substituteString(text: string, depth: number, state: WalkState): unknown {
  const placeholders = findPlaceholders(text);
  if (placeholders.length === 0) return text;
  const only = placeholders[0]!;
  if (placeholders.length === 1 && only.start === 0 && only.end === text.length) {
    const resolved = resolve(only, state.context);
    if (!resolved) return leftAsWritten(only, text, state);
    // Measured by path only when no filter changed it (filters give small, fresh values).
    const key = only.filters.length ? `${only.path}|${only.start}|${text}` : only.path;
    const { size, nesting } = measure(key, resolved.value, state.measured);
    if (depth + nesting > MAX_NESTING) throw new SubstitutionTooLarge(tooDeepMessage());
    spend(state.budget, size);
    state.substitutions.push(`{{${only.path}}}`);
    return resolved.value;
  }
  const parts: string[] = [];
  let last = 0;
  for (const placeholder of placeholders) {
    if (isEscaped(text, placeholder)) {
      parts.push(text.slice(last, placeholder.start - 1));
      last = placeholder.start;
      continue;
    }
    const resolved = resolve(placeholder, state.context);
    if (!resolved) {
      leftAsWritten(placeholder, text, state);
      continue;
    }
    if (
      measure(placeholder.filters.length ? `${placeholder.path}|${placeholder.start}|${text}` : placeholder.path, resolved.value, state.measured).nesting >
      MAX_NESTING
    ) {
      throw new SubstitutionTooLarge(tooDeepMessage());
    }
    const replacement = stringify(resolved.value);
    spend(state.budget, replacement.length);
    parts.push(text.slice(last, placeholder.start), replacement);
    last = placeholder.end;
    state.substitutions.push(`{{${placeholder.path}}}`);
  }
  parts.push(text.slice(last));
  return parts.join("");
}

/** A placeholder with no value: reported (strict: refused), and left as written. */
function leftAsWritten(placeholder: Placeholder, text: string, state: WalkState): string {
  const name = `{{${placeholder.path}}}`;
  if (state.strict) throw new PlaceholderMissing(name);
  state.missing.push(name);
  return text;
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
