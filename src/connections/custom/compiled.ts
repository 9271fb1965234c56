// What a stored custom platform compiles to (config schema, tools, input schemas, validators),
// kept per isolate by the row's id, so a request does not parse and compile up to 1.9 MB of
// declarations again. Rows are never edited (a new document is a new platform, with a new row id),
// so an entry never goes stale; whether the platform still exists and is the caller's is read
// from D1 on every request (resolve.ts) before an entry is used, so a deletion anywhere takes
// effect at the next request. Bounded by the declarations' stored size.

import { IsolateCache } from "../../core/isolate-cache";
import type { Platform } from "../platforms/types";

/** Stored bytes of declarations kept compiled per isolate: room for eight platforms of the largest size. */
export const COMPILED_PLATFORMS_MAX_BYTES = 16 * 1024 * 1024;
export const COMPILED_PLATFORMS_MAX_ENTRIES = 200;

interface Compiled {
  platform: Platform;
  bytes: number;
}

// Only peek and set are used: freshness is checked against D1 by the caller, not by age.
const compiled = new IsolateCache<Compiled>({ maxEntries: COMPILED_PLATFORMS_MAX_ENTRIES, maxWeight: COMPILED_PLATFORMS_MAX_BYTES, weigh: (e) => e.bytes });

/** The platform compiled from row `rowId`, if this isolate has it. */
export function compiledPlatform(rowId: number): Platform | undefined {
  return compiled.peek(String(rowId))?.platform;
}

/** Keeps a compiled platform; `bytes` is its declarations' stored size (too large a one is not kept). */
export function keepCompiledPlatform(rowId: number, platform: Platform, bytes: number): void {
  compiled.set(String(rowId), { platform, bytes });
}

/** Drops a deleted platform's entry (it would only take room: no lookup reaches it any more). */
export function forgetCompiledPlatform(rowId: number): void {
  compiled.forgetKey(String(rowId));
}
