import type { ToolInfo } from "../../tools/types";
import { catalogFingerprint } from "./fingerprint";
import { buildToolIndex, type ToolIndex } from "./tool-index";

/**
 * Indexes kept per isolate, most recently used last. An index is keyed by its catalog's
 * fingerprint, so it is never stale: a changed catalog is a new key, and the old index simply
 * ages out. Bounded by count and by the tools they hold, as an index keeps every term of its tools.
 */
const MAX_INDEXES = 8;
const MAX_INDEXED_TOOLS = 12_000;

const indexes = new Map<string, ToolIndex>();
let indexedTools = 0;
let builds = 0;

/** The index of a catalog's available tools: this isolate's copy when it has one for this catalog version, else built now. */
export function toolIndexFor(catalog: readonly ToolInfo[]): ToolIndex {
  const available = catalog.filter((tool) => tool.available);
  const key = catalogFingerprint(available);
  const cached = indexes.get(key);
  if (cached) {
    // Map order is the use order: move it to the end.
    indexes.delete(key);
    indexes.set(key, cached);
    return cached;
  }
  const index = buildToolIndex(available, key);
  builds++;
  while (indexes.size > 0 && (indexes.size >= MAX_INDEXES || indexedTools + index.tools.size > MAX_INDEXED_TOOLS)) {
    const [oldestKey, oldest] = indexes.entries().next().value as [string, ToolIndex];
    indexes.delete(oldestKey);
    indexedTools -= oldest.tools.size;
  }
  indexes.set(key, index);
  indexedTools += index.tools.size;
  return index;
}

/** How many indexes this isolate has built: lets tests see that an unchanged catalog is not indexed again. */
export function toolIndexBuilds(): number {
  return builds;
}
