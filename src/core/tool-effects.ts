/**
 * What calling a catalog tool does (DESIGN §6.2 "Effects"), and how the effect is derived where a
 * tool does not declare it: MCP tools from their annotations, custom platform operations from their
 * HTTP method. It sits below both connections/ (whose platforms declare effects) and tools/ (which
 * shows them), like tool-context.ts.
 */

/**
 * `read`: no side effect. `write`: changes something small or that can be undone (one message,
 * one record). `destructive`: irreversible or wide (deleting, charging or refunding, sending a
 * campaign to a list, cancelling).
 */
export type ToolEffect = "read" | "write" | "destructive";

export const TOOL_EFFECTS = ["read", "write", "destructive"] as const satisfies readonly ToolEffect[];

/** The hints of an MCP tool's `annotations` that say what it does (both optional, as servers send them). */
export interface EffectHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
}

/**
 * An MCP tool's effect from its annotations: `readOnlyHint: true` → read; else
 * `destructiveHint: true` → destructive; else (no hints, or only false ones) write.
 */
export function effectOfMcpAnnotations(annotations: EffectHints | undefined): ToolEffect {
  if (annotations?.readOnlyHint === true) return "read";
  if (annotations?.destructiveHint === true) return "destructive";
  return "write";
}

/** A custom platform operation's effect from its HTTP method: GET and HEAD read, DELETE destructive, the others write. */
export function effectOfMethod(method: string): ToolEffect {
  const upper = method.toUpperCase();
  if (upper === "GET" || upper === "HEAD") return "read";
  if (upper === "DELETE") return "destructive";
  return "write";
}

/**
 * The MCP annotations that say an effect, for the hub's own MCP server's tools/list: the inverse of
 * effectOfMcpAnnotations (a write is neither read-only nor destructive).
 */
export function mcpAnnotationsOf(effect: ToolEffect): { readOnlyHint: boolean; destructiveHint: boolean } {
  return { readOnlyHint: effect === "read", destructiveHint: effect === "destructive" };
}
