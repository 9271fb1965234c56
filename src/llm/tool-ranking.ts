import type { ToolInfo } from "../tools/types";

/** Words that say nothing about which tool is meant. */
const STOP_WORDS = new Set(
  "a an the and or but if then else for to of in on at by with from into onto about as is are was were be been being do does did have has had i me my we our you your it its this that these those please can could would should will shall may might must just some any all each every no not so than too very what which who whom how why when where there here up down out over again further once".split(
    " ",
  ),
);

/** Lower-case word stems: "Sending" and "send", "contacts" and "contact" meet. */
export function terms(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1 && !STOP_WORDS.has(word))
    .map(stem);
}

function stem(word: string): string {
  for (const suffix of ["ing", "ed", "es", "s"]) {
    if (word.length > suffix.length + 2 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  }
  return word;
}

export interface RankedTool {
  tool: ToolInfo;
  /** 0..1: the share of the tool's name words the message mentions, plus description overlap. */
  score: number;
  reason: string;
}

/**
 * Ranks tools by how well a message matches them: words of the tool's name count most, its
 * platform next, its description least. Deterministic, and cheap enough to run on every turn.
 */
export function rankTools(message: string, tools: ToolInfo[], limit = 8): RankedTool[] {
  const wanted = new Set(terms(message));
  if (wanted.size === 0) return [];
  const ranked: RankedTool[] = [];
  for (const tool of tools) {
    if (!tool.available) continue;
    const nameTerms = [...new Set(terms(tool.name.replace(/^mcp_\d+_/, "")))];
    const platformTerms = tool.platform ? terms(tool.platform) : [];
    const descriptionTerms = [...new Set(terms(`${tool.title} ${tool.description}`))];
    const nameHits = nameTerms.filter((t) => wanted.has(t));
    const platformHit = platformTerms.some((t) => wanted.has(t));
    const descriptionHits = descriptionTerms.filter((t) => wanted.has(t) && !nameHits.includes(t));
    const score = 0.6 * (nameTerms.length ? nameHits.length / nameTerms.length : 0) + (platformHit ? 0.2 : 0) + 0.2 * Math.min(1, descriptionHits.length / 3);
    if (score <= 0) continue;
    const reasons = [
      nameHits.length ? `name matches "${nameHits.join('", "')}"` : "",
      platformHit ? `mentions ${tool.platform}` : "",
      descriptionHits.length ? `description matches "${descriptionHits.slice(0, 5).join('", "')}"` : "",
    ].filter(Boolean);
    ranked.push({ tool, score: Math.round(score * 1000) / 1000, reason: reasons.join("; ") });
  }
  return ranked.sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name)).slice(0, limit);
}
