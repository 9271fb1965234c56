import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { type SavedWorkflow, presentWorkflow } from "../workflows/service";
import type { Bundle } from "./bundle";
import { importBundle } from "./import-bundle";
import { importN8n } from "./n8n/import-n8n";

/** The body of `POST /v1/workflows/import`: exactly one of `bundle` (this hub's format) or `n8n` (an n8n workflow export). */
export interface ImportBody {
  bundle?: Bundle;
  /** An n8n workflow export, or a list of them imported together (see n8n/import-n8n.ts). */
  n8n?: unknown;
  connections?: Record<string, number>;
}

/** What could not be carried over as it was (an n8n node the hub has no counterpart for). */
export interface ImportWarning {
  node?: string;
  reason: string;
}

export interface ImportResult {
  workflow: ReturnType<typeof presentWorkflow>;
  children: (ReturnType<typeof presentWorkflow> & { ref: string })[];
  warnings: ImportWarning[];
}

/** Imports what the body carries, by its kind; the API route and the dashboard's import form both call this. */
export async function importWorkflows(ctx: ServiceContext, body: ImportBody): Promise<ImportResult> {
  if ((body.bundle === undefined) === (body.n8n === undefined)) {
    throw new HubError("validation_failed", "Send exactly one of bundle (a hub export) or n8n (an n8n workflow export).", {
      errors: [{ location: "body", field: "bundle", message: "Send either bundle or n8n." }],
    });
  }
  if (body.bundle) {
    const imported = await importBundle(ctx, body.bundle, body.connections);
    return result(imported.workflow, imported.children, []);
  }
  return importN8n(ctx, body.n8n);
}

function result(workflow: SavedWorkflow, children: (SavedWorkflow & { ref: string })[], warnings: ImportWarning[]): ImportResult {
  return { workflow: presentWorkflow(workflow), children: children.map((child) => ({ ...presentWorkflow(child), ref: child.ref })), warnings };
}
