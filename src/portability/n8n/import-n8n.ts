import type { ServiceContext } from "../../core/context";
import { HubError } from "../../core/errors";
import { type SavedWorkflow, checkedSteps, createWorkflow, deleteWorkflow, presentWorkflow } from "../../workflows/service";
import { describeBytes } from "../../lib/bytes";
import { MAX_BUNDLE_CHARS } from "../bundle";
import { type Conversion, type ConvertedWorkflow, calledWorkflowIds, convertN8n } from "./convert";
import type { ImportWarning, ImportedWorkflow } from "./types";

/** The most n8n workflows one call imports together. */
export const MAX_N8N_WORKFLOWS = 20;

const createBody = (workflow: ConvertedWorkflow) => ({
  name: workflow.workflow_name,
  description: workflow.description,
  steps: workflow.steps,
  triggerType: workflow.trigger_type,
  triggerConfig: workflow.trigger_config,
  metadata: workflow.workflow_metadata,
});

/**
 * `POST /v1/workflows/import {n8n}`: an n8n export (or a list of them, as `n8n export:workflow
 * --all` writes) becomes hub workflows through the normal create service, so every check of
 * `POST /v1/workflows` applies. In a list, a workflow that others call (Execute Workflow) is
 * created first and the callers' `workflow` steps name it. The answer: the workflow (for a list,
 * the last one no other calls), the others as `children` (`ref`: their n8n id) and
 * `warnings: [{node, reason}]` (in a list, the node named after its workflow). All or nothing.
 */
export async function importN8n(ctx: ServiceContext, n8n: unknown) {
  const list = Array.isArray(n8n);
  const exports = list ? n8n : [n8n];
  if (exports.length === 0 || exports.length > MAX_N8N_WORKFLOWS) {
    throw new HubError("validation_failed", "Nothing to import.", {
      errors: [{ location: "body", field: "n8n", message: `An n8n workflow export, or a list of 1 to ${MAX_N8N_WORKFLOWS}.` }],
    });
  }
  // The same bound as a bundle's: converting is work for every node and expression.
  const size = JSON.stringify(n8n).length;
  if (size > MAX_BUNDLE_CHARS) {
    throw new HubError(
      "payload_too_large",
      `An n8n import may hold ${MAX_BUNDLE_CHARS} characters of JSON (${describeBytes(MAX_BUNDLE_CHARS)}); this one has ${size}.`,
    );
  }
  const order = calleesFirst(exports);
  // Everything is converted and checked before anything is created: a bad export creates nothing.
  const trial = new Map<string, ImportedWorkflow>();
  for (const index of order) {
    const conversion = convertN8n(exports[index], { imported: trial, field: list ? `n8n.${index}` : "n8n" });
    await checkedSteps(conversion.workflow.steps, list ? `n8n.${index}.steps` : "steps");
    trial.set(n8nIdOf(exports[index]) ?? `#${index}`, { id: 1, lastStepId: conversion.lastStepId });
  }
  const imported = new Map<string, ImportedWorkflow>();
  const created: { row: SavedWorkflow; conversion: Conversion; index: number }[] = [];
  try {
    for (const index of order) {
      const conversion = convertN8n(exports[index], { imported, field: list ? `n8n.${index}` : "n8n" });
      const row = await createWorkflow(ctx, createBody(conversion.workflow));
      created.push({ row, conversion, index });
      imported.set(n8nIdOf(exports[index]) ?? `#${index}`, { id: row.id, lastStepId: conversion.lastStepId });
    }
  } catch (error) {
    for (const { row } of created) await deleteWorkflow(ctx, row.id).catch(() => undefined);
    throw error;
  }
  const called = new Set(created.flatMap(({ conversion }) => conversion.calls));
  const root = [...created].reverse().find(({ index }) => !called.has(n8nIdOf(exports[index]) ?? "")) ?? created.at(-1)!;
  const warnings: ImportWarning[] = created.flatMap(({ row, conversion }) =>
    conversion.warnings.map((warning) => (list ? { node: `${row.name}: ${warning.node}`, reason: warning.reason } : warning)),
  );
  return {
    workflow: presentWorkflow(root.row),
    children: created.filter((entry) => entry !== root).map(({ row, index }) => ({ ...presentWorkflow(row), ref: n8nIdOf(exports[index]) ?? `#${index}` })),
    warnings,
  };
}

function n8nIdOf(raw: unknown): string | undefined {
  const id = (raw as { id?: unknown })?.id;
  return typeof id === "string" || typeof id === "number" ? String(id) : undefined;
}

/** Indexes of the exports, each workflow after those it calls (a call in a circle keeps the list's order). */
function calleesFirst(exports: unknown[]): number[] {
  const byId = new Map(exports.flatMap((raw, index) => (n8nIdOf(raw) ? [[n8nIdOf(raw)!, index] as const] : [])));
  const order: number[] = [];
  const state = new Map<number, "visiting" | "done">();
  const visit = (index: number) => {
    if (state.has(index)) return;
    state.set(index, "visiting");
    for (const id of calledWorkflowIds(exports[index])) {
      const callee = byId.get(id);
      if (callee !== undefined) visit(callee);
    }
    state.set(index, "done");
    order.push(index);
  };
  for (let index = 0; index < exports.length; index++) visit(index);
  return order;
}
