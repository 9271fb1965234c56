import type { MessageRecord } from "../conversations/messages";

/** Leaves of one result indexed, at most: a huge result links what it can in bounded work. */
const MAX_LEAVES = 5_000;
const MAX_DEPTH = 8;

/** A value worth linking: an id, an email, a URL… not `true`, `0` or "ok", which match by chance. */
function linkable(value: unknown): value is string | number {
  if (typeof value === "string") return value.length >= 4 && !/^(true|false|null|none|done|success|ok)$/i.test(value);
  return typeof value === "number" && Number.isFinite(value) && Math.abs(value) >= 100;
}

const keyOf = (value: string | number) => `${typeof value}:${value}`;

/** The results of a conversation's tool calls, by call id (what the hub sent back to the model). */
export function resultsByCall(messages: MessageRecord[]): Map<string, unknown> {
  const results = new Map<string, unknown>();
  for (const message of messages) {
    if (message.role !== "tool" || !message.tool_call_id) continue;
    try {
      results.set(message.tool_call_id, JSON.parse(message.content));
    } catch {
      // An error text or a shortened result: nothing to link to.
    }
  }
  return results;
}

/**
 * Where each linkable value of a step's result sits, as a placeholder path: `{{steps.<id>.result.<path>}}`.
 * Later steps are indexed after earlier ones, so a value both returned is linked to the latest.
 */
export class ResultIndex {
  private readonly paths = new Map<string, string>();

  add(stepId: string, result: unknown) {
    let leaves = 0;
    // Within one result the shortest path wins (`uuid` over `uuids.0`); across steps, the latest.
    const found = new Map<string, string[]>();
    const walk = (node: unknown, path: string[], depth: number) => {
      if (leaves >= MAX_LEAVES || depth > MAX_DEPTH) return;
      if (Array.isArray(node)) {
        for (let i = 0; i < node.length; i++) walk(node[i], [...path, String(i)], depth + 1);
      } else if (node !== null && typeof node === "object") for (const [key, child] of Object.entries(node)) walk(child, [...path, key], depth + 1);
      else if (linkable(node)) {
        leaves++;
        const known = found.get(keyOf(node));
        if (!known || path.length < known.length) found.set(keyOf(node), path);
      }
    };
    walk(result, [], 0);
    for (const [key, path] of found) this.paths.set(key, `{{steps.${stepId}.result${path.map((p) => `.${p}`).join("")}}}`);
  }

  /**
   * The arguments with every value an earlier step returned replaced by a link to it (a string
   * that is exactly that value; nested objects and arrays included). Placeholders already there stay.
   */
  link(args: Record<string, unknown>): Record<string, unknown> {
    const walk = (node: unknown, depth: number): unknown => {
      if (depth > MAX_DEPTH) return node;
      if (Array.isArray(node)) return node.map((child) => walk(child, depth + 1));
      if (node !== null && typeof node === "object") return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, depth + 1)]));
      if (typeof node === "string" && node.includes("{{")) return node;
      return linkable(node) ? (this.paths.get(keyOf(node)) ?? node) : node;
    };
    return walk(args, 0) as Record<string, unknown>;
  }
}
