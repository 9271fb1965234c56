import type { ToolInfo } from "../../tools/types";
import { parameterNames } from "./tool-fields";

/**
 * A cheap fingerprint of what the index reads of a catalog (names, platforms, titles,
 * descriptions, parameter names, in order), so a turn whose catalog has not changed finds the
 * index built for it. Two 32-bit hashes over the same text (FNV-1a and a multiply-rotate one)
 * and the tool count: a collision between two versions of one person's catalog is negligible.
 */
export function catalogFingerprint(tools: readonly ToolInfo[]): string {
  let fnv = 0x811c9dc5;
  let mix = 0x9747b28c;
  const feed = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      fnv = Math.imul(fnv ^ code, 0x01000193);
      mix = Math.imul(mix ^ code, 0x5bd1e995);
      mix ^= mix >>> 15;
    }
    // A separator no field can hold, so "ab"+"c" and "a"+"bc" differ.
    fnv = Math.imul(fnv ^ 0xffff, 0x01000193);
    mix = Math.imul(mix ^ 0xffff, 0x5bd1e995);
  };
  for (const tool of tools) {
    feed(tool.name);
    feed(tool.platform ?? "");
    feed(tool.title);
    feed(tool.description);
    feed(parameterNames(tool).join(","));
  }
  return `${tools.length}-${(fnv >>> 0).toString(36)}-${(mix >>> 0).toString(36)}`;
}
