/**
 * How deeply JSON values may nest where the hub walks them. A 1 MiB body can nest half a
 * million levels (`[[[[…`); every recursive walk (serialising, comparing, substituting) would
 * overflow the stack on it and answer a 500. Real data never comes close to this limit.
 */
export const MAX_NESTING = 64;

/**
 * How many levels `value` nests (a scalar is 0, `[]` and `{}` are 1), counting no further than
 * `limit + 1`. Walks with its own stack, never recursion, and stops at the first node past the
 * limit, so a hostile value costs no more than its first `limit + 1` levels along one branch.
 */
export function nestingDepth(value: unknown, limit = MAX_NESTING): number {
  let deepest = 0;
  const pending: [node: unknown, depth: number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, depth] = next;
    if (node === null || typeof node !== "object") continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === "object") pending.push([child, depth + 1]);
    }
  }
  return deepest;
}

export const nestsDeeperThan = (value: unknown, limit = MAX_NESTING) => nestingDepth(value, limit) > limit;

export const tooDeepMessage = (limit = MAX_NESTING) => `The value is nested deeper than ${limit} levels.`;
