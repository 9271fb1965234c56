/**
 * Steps as plain JSON records, walked at every depth: a condition's branches, a for_each's body
 * and an on_error handler. Bundles are read before their steps are validated, so this walk
 * assumes nothing of a step but that it is an object.
 */
export type StepRecord = Record<string, unknown>;

export function eachStep(steps: unknown, visit: (step: StepRecord) => void): void {
  if (!Array.isArray(steps)) return;
  for (const step of steps) {
    if (!isRecord(step)) continue;
    visit(step);
    eachStep(step.then, visit);
    eachStep(step.else, visit);
    eachStep(step.steps, visit);
    if (isRecord(step.on_error)) eachStep(step.on_error.steps, visit);
  }
}

export const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/** `mcp_<connection id>_<tool>`: the MCP tools' names hold the connection's id (tools/catalog.ts). */
const MCP_TOOL = /^mcp_(\d+)_(.+)$/;
/** In a bundle the id is a `*`, and the step (or list entry) names its connection beside it. */
const PORTABLE_MCP_TOOL = /^mcp_\*_(.+)$/;

export function mcpToolParts(name: unknown): { connectionId: number; fragment: string } | undefined {
  const match = typeof name === "string" ? name.match(MCP_TOOL) : null;
  return match ? { connectionId: Number(match[1]), fragment: match[2]! } : undefined;
}

export const portableMcpTool = (fragment: string) => `mcp_*_${fragment}`;

/** `mcp_*_search` with connection 12 → `mcp_12_search`; any other name is kept. */
export function localMcpTool(name: unknown, connectionId: number): unknown {
  const match = typeof name === "string" ? name.match(PORTABLE_MCP_TOOL) : null;
  return match ? `mcp_${connectionId}_${match[1]}` : name;
}
