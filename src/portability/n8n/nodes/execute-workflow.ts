import type { NodeContext, NodeResult } from "../types";

/**
 * Execute Workflow → a `workflow` step, when the workflow it calls is imported in the same call
 * (its n8n id names it). The call's input is the node's mapped workflow inputs, or else the
 * fields of the item it reads that are known by name.
 */
export function executeWorkflowNode(ctx: NodeContext): NodeResult | null {
  const p = ctx.node.parameters ?? {};
  const raw = p.workflowId;
  const n8nId = String(raw && typeof raw === "object" ? (raw as { value?: unknown }).value : (raw ?? ""));
  const target = p.source && p.source !== "database" ? undefined : ctx.importedWorkflow(n8nId);
  if (!target) {
    ctx.warn(`It calls n8n workflow "${n8nId}", which is not imported with it: import both together (n8n: [caller, called]).`);
    return null;
  }
  const mapped = (p.workflowInputs as { value?: Record<string, unknown> })?.value;
  const input = mapped && Object.keys(mapped).length ? (ctx.value(mapped) as Record<string, unknown>) : knownFields(ctx);
  const result = `steps.${ctx.stepId}.result`;
  return {
    steps: [{ id: ctx.stepId, type: "workflow", name: ctx.node.name, workflow_id: target.id, input }],
    output: [{ base: target.lastStepId ? `${result}.steps.${target.lastStepId}` : result }],
  };
}

/** The item's fields whose names are known (a Set node's, a webhook's body), as placeholders. */
function knownFields(ctx: NodeContext): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const layer of ctx.input) {
    if (layer.aliases) for (const [key, path] of Object.entries(layer.aliases)) if (path) input[key] = `{{${path}}}`;
    if (layer.keys) for (const key of layer.keys) input[key] = `{{${layer.base}.${key}}}`;
  }
  if (ctx.input.some((layer) => !layer.aliases && !layer.keys))
    ctx.warn("Only the fields known by name are passed to the called workflow; map its inputs in n8n to pass others.");
  return input;
}
