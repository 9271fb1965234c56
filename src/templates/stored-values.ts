/**
 * How deep a stored value may nest for publishing and using templates to walk it. Condition
 * branches nest steps, so a valid workflow can go a few hundred levels deep; nothing real
 * comes near this.
 */
export const MAX_TEMPLATE_DEPTH = 1000;

/**
 * What makes a stored value unfit for a template: a `{truncated: true, preview}` marker (left
 * where a size cap cut a value, so the rest is gone), or nesting past MAX_TEMPLATE_DEPTH.
 * Walks with its own stack, so a hostile value cannot overflow the call stack.
 */
export function storedValueProblem(value: unknown): "truncated" | "too_deep" | null {
  const pending: [node: unknown, depth: number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, depth] = next;
    if (node === null || typeof node !== "object") continue;
    if (depth >= MAX_TEMPLATE_DEPTH) return "too_deep";
    const record = node as Record<string, unknown>;
    if (!Array.isArray(node) && record.truncated === true && typeof record.preview === "string") return "truncated";
    for (const child of Array.isArray(node) ? node : Object.values(record)) pending.push([child, depth + 1]);
  }
  return null;
}
