import { getPath } from "./json-path";

/** `{{ name }}`, `{{contact.emails.0}}`: whitespace inside the braces is ignored. */
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_$][A-Za-z0-9_$.\-]*)\s*\}\}/g;
const EXACT = /^\{\{\s*([A-Za-z0-9_$][A-Za-z0-9_$.\-]*)\s*\}\}$/;

export interface Substitution {
  value: unknown;
  /** Each placeholder that was replaced, as written in the template (`{{name}}`). */
  substitutions: string[];
}

/**
 * Replaces placeholders throughout a JSON value. A string that is exactly one placeholder takes
 * the referenced value with its own type; placeholders inside longer strings are stringified
 * (objects as JSON). Unknown names are left as written and not reported.
 */
export function substitute(value: unknown, context: unknown): Substitution {
  const substitutions: string[] = [];
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") return substituteString(node, context, substitutions);
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === "object") {
      return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, walk(child)]));
    }
    return node;
  };
  return { value: walk(value), substitutions };
}

function substituteString(text: string, context: unknown, substitutions: string[]): unknown {
  const exact = text.match(EXACT);
  if (exact) {
    const hit = getPath(context, exact[1]!);
    if (!hit.found) return text;
    substitutions.push(`{{${exact[1]}}}`);
    return hit.value;
  }
  return text.replace(PLACEHOLDER, (whole, path: string) => {
    const hit = getPath(context, path);
    if (!hit.found) return whole;
    substitutions.push(`{{${path}}}`);
    return stringify(hit.value);
  });
}

export function stringify(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}
