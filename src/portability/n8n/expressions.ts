/**
 * n8n expressions → hub placeholders. An n8n parameter whose text starts with `=` is a template
 * whose `{{ … }}` parts are JavaScript (`={{ $json.email }}`, `=Hi {{ $json.name }}!`). The parts
 * that only read a value — `$json.x`, `$('Node').item.json.x`, `$node["Node"].json.x`,
 * `$input.item.json.x`, `$now`, `$execution.id`, with `.toUpperCase()`, `.length`, `|| "x"`… —
 * become placeholders (`{{steps.node.result.x | upper}}`); anything else is computed by a code
 * step in the sandbox (`ExpressionScope.computed`), so it still gives what n8n gives.
 */

export interface ExpressionScope {
  /** The hub path of `segments` of `$json` (node undefined) or of a node's output; null when the hub has no such value. */
  path(node: string | undefined, segments: string[]): string | null;
  /** A placeholder for the value of a JavaScript expression, worked out by a code step before the node's own. */
  computed(js: string): string;
}

type Part = { text: string } | { js: string };

/** A parameter value (objects and lists walked) with its expressions as placeholders. */
export function translateValue(raw: unknown, scope: ExpressionScope): unknown {
  if (Array.isArray(raw)) return raw.map((entry) => translateValue(entry, scope));
  if (raw && typeof raw === "object") return Object.fromEntries(Object.entries(raw).map(([key, entry]) => [key, translateValue(entry, scope)]));
  if (typeof raw !== "string") return raw;
  if (!raw.startsWith("=")) return literalText(raw);
  return translateTemplate(raw.slice(1), scope);
}

/** Whether a parameter value is an n8n expression. */
export const isExpression = (raw: unknown): raw is string => typeof raw === "string" && raw.startsWith("=");

/** Text that stays as it is: a `{{` in it would read as a placeholder, so it is escaped. */
const literalText = (text: string) => text.replaceAll("{{", "\\{{");

function translateTemplate(template: string, scope: ExpressionScope): unknown {
  const parts = splitTemplate(template);
  if (!parts.some((part) => "js" in part)) return literalText(template);
  const translated = parts.map((part) => ("js" in part ? translateJs(part.js, scope) : part));
  if (translated.some((part) => part === null)) return scope.computed(templateAsJs(parts));
  if (parts.length === 1) {
    const only = translated[0] as Translated;
    return "literal" in only ? only.literal : only.placeholder;
  }
  return translated
    .map((part) => {
      const piece = part as Translated | { text: string };
      if ("text" in piece) return literalText(piece.text);
      if ("literal" in piece) return literalText(String(piece.literal ?? ""));
      // n8n writes a missing value inside text as nothing.
      return piece.hasDefault ? piece.placeholder : `${piece.placeholder.slice(0, -2)} | default: ""}}`;
    })
    .join("");
}

/** The text and `{{ … }}` parts of a template, in order. */
export function splitTemplate(template: string): Part[] {
  const parts: Part[] = [];
  let from = 0;
  for (;;) {
    const open = template.indexOf("{{", from);
    const close = open < 0 ? -1 : template.indexOf("}}", open + 2);
    if (open < 0 || close < 0) {
      if (from < template.length) parts.push({ text: template.slice(from) });
      return parts;
    }
    if (open > from) parts.push({ text: template.slice(from, open) });
    parts.push({ js: template.slice(open + 2, close).trim() });
    from = close + 2;
  }
}

/** The template as one JavaScript expression (for a code step): its text and values joined as n8n joins them. */
export function templateAsJs(parts: Part[]): string {
  if (parts.length === 1 && "js" in parts[0]!) return `(${parts[0].js})`;
  return parts.map((part) => ("js" in part ? `__text(${part.js})` : JSON.stringify(part.text))).join(" + ");
}

type Translated = { literal: unknown } | { placeholder: string; hasDefault: boolean };

const FILTER_METHODS: Record<string, string> = { toUpperCase: "upper", toLowerCase: "lower", trim: "trim", first: "first", last: "last" };
const ROOTS: { pattern: RegExp; node: (m: RegExpExecArray) => string | undefined }[] = [
  { pattern: /^\$json\b/, node: () => undefined },
  { pattern: /^\$input\.(?:item|first\(\)|last\(\)|all\(\)\[0\])\.json\b/, node: () => undefined },
  { pattern: /^\$\(\s*(['"])(.+?)\1\s*\)\.(?:item|first\(\)|last\(\)|all\(\)\[0\])\.json\b/, node: (m) => m[2] },
  { pattern: /^\$node\[\s*(['"])(.+?)\1\s*\]\.json\b/, node: (m) => m[2] },
  { pattern: /^\$node\.([A-Za-z_$][\w$]*)\.json\b/, node: (m) => m[1] },
];
const SPECIALS: Record<string, string> = {
  $now: "execution.started_at",
  "$now.toISO()": "execution.started_at",
  "$now.toString()": "execution.started_at",
  "$execution.id": "execution.id",
};
/** A segment the hub's placeholder paths can hold. */
const PATH_SEGMENT = /^[A-Za-z0-9_$-]+$/;

/**
 * One `{{ … }}` part as a literal or a placeholder, or null when it does more than read a value
 * (then a code step works it out).
 */
export function translateJs(source: string, scope: ExpressionScope): Translated | null {
  let js = source.trim();
  const literal = literalOf(js);
  if (literal !== undefined) return { literal: literal.value };
  const filters: string[] = [];
  let fallback: string | undefined;
  const stringified = /^JSON\.stringify\(([\s\S]*)\)$/.exec(js);
  if (stringified) {
    js = stringified[1]!.trim();
    filters.push("json");
  }
  const defaulted = /^([\s\S]*?)\s*(?:\|\||\?\?)\s*('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?)$/.exec(js);
  if (defaulted) {
    js = defaulted[1]!;
    fallback = String(literalOf(defaulted[2]!)?.value ?? "");
  }
  const special = SPECIALS[js];
  let path: string | null;
  if (special) path = special;
  else {
    const reference = referenceOf(js);
    if (!reference) return null;
    filters.unshift(...reference.filters);
    path = scope.path(reference.node, reference.segments);
  }
  if (!path) return null;
  const written = [...(fallback !== undefined ? [`default: ${JSON.stringify(fallback)}`] : []), ...filters];
  return { placeholder: `{{${[path, ...written].join(" | ")}}}`, hasDefault: fallback !== undefined };
}

/** A JavaScript literal (string, number, boolean, null), if the text is one. */
function literalOf(js: string): { value: unknown } | undefined {
  if (/^-?\d+(\.\d+)?$/.test(js)) return { value: Number(js) };
  if (js === "true" || js === "false") return { value: js === "true" };
  if (js === "null") return { value: null };
  if (/^'(?:[^'\\]|\\.)*'$/.test(js)) return { value: js.slice(1, -1).replace(/\\(.)/g, "$1") };
  if (/^"(?:[^"\\]|\\.)*"$/.test(js)) return { value: JSON.parse(js) };
  return undefined;
}

/** `$json.a["b"][0].toUpperCase()` → node, path segments and filters; null when it is anything more. */
function referenceOf(js: string): { node: string | undefined; segments: string[]; filters: string[] } | null {
  for (const root of ROOTS) {
    const match = root.pattern.exec(js);
    if (!match) continue;
    const segments: string[] = [];
    const filters: string[] = [];
    let rest = js.slice(match[0].length);
    while (rest.length) {
      const step = accessorOf(rest, filters.length > 0);
      if (!step) return null;
      if (!("segment" in step)) {
        if (step.filter) filters.push(step.filter);
      } else if (PATH_SEGMENT.test(step.segment)) segments.push(step.segment);
      else return null;
      rest = rest.slice(step.length);
    }
    return { node: root.node(match), segments, filters };
  }
  return null;
}

/**
 * The accessor at the start of `rest`: a filter method (`.toUpperCase()`, `.length`, `.join(", ")`;
 * `.toString()` adds none), or a path segment (`.name`, `["name"]`, `[0]`), which may not follow a filter.
 */
function accessorOf(rest: string, afterFilter: boolean): { filter?: string; length: number } | { segment: string; length: number } | null {
  const method = /^\.(toUpperCase|toLowerCase|trim|first|last)\(\)/.exec(rest);
  if (method) return { filter: FILTER_METHODS[method[1]!], length: method[0].length };
  const join = /^\.join\(\s*('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\s*\)/.exec(rest);
  if (join) return { filter: `join: ${JSON.stringify(literalOf(join[1]!)?.value)}`, length: join[0].length };
  const length = /^\.length\b/.exec(rest);
  if (length) return { filter: "length", length: length[0].length };
  const text = /^\.toString\(\)/.exec(rest);
  if (text) return { length: text[0].length };
  if (afterFilter) return null;
  const segment = /^\.([A-Za-z_$][\w$]*)/.exec(rest) ?? /^\[\s*(?:'([^'\\]*)'|"([^"\\]*)"|(\d+))\s*\]/.exec(rest);
  return segment ? { segment: segment[1] ?? segment[2] ?? segment[3] ?? "", length: segment[0].length } : null;
}

/** The names of the nodes a piece of JavaScript reads with `$('Name')` or `$node["Name"]`. */
export function nodesNamedIn(js: string): string[] {
  const names = new Set<string>();
  for (const m of js.matchAll(/\$\(\s*(['"])(.+?)\1\s*\)|\$node\[\s*(['"])(.+?)\3\s*\]|\$node\.([A-Za-z_$][\w$]*)/g)) names.add(m[2] ?? m[4] ?? m[5]!);
  return [...names];
}
