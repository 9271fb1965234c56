import type { Item, Layer } from "./types";

/**
 * The hub path of `segments` of an n8n item (`$json.a.b` → "steps.s.result.a.b"), looked up
 * from the top layer down; null when the hub keeps no such value (a webhook's headers) or the
 * whole item is asked for but spread over several layers (a code step merges those).
 */
export function resolvePath(item: Item, segments: string[]): string | null {
  if (segments.length === 0) {
    const only = item.length === 1 ? item[0]! : undefined;
    return only && !only.aliases ? only.base : null;
  }
  const [first, ...rest] = segments as [string, ...string[]];
  for (let i = item.length - 1; i >= 0; i--) {
    const layer = item[i]!;
    if (layer.aliases) {
      const alias = Object.hasOwn(layer.aliases, first) ? layer.aliases[first] : null;
      return alias ? [alias, ...rest].join(".") : null;
    }
    if (layer.keys && !layer.keys.has(first)) continue;
    return [layer.base, ...segments].join(".");
  }
  return null;
}

/** The item a step's whole result is. */
export const resultOf = (stepId: string, keys?: Iterable<string>): Layer => ({
  base: `steps.${stepId}.result`,
  ...(keys ? { keys: new Set(keys) } : {}),
});

/** The run's input as an item (a manual start, a sub-workflow's caller). */
export const RUN_INPUT: Item = [{ base: "input" }];
