import type { ServiceContext } from "../core/context";
import { type FieldError, HubError } from "../core/errors";
import { type SavedWorkflow, checkedSteps, workflowSize } from "../workflows/service";
import { SettingsSchema, validateSteps } from "../workflows/steps";
import { checkedTrigger } from "../workflows/triggers";
import { describeBytes } from "../lib/bytes";
import { type Bundle, type BundleWorkflow, type ConnectionRef, MAX_BUNDLE_CHARS } from "./bundle";
import { mapConnections } from "./connection-mapping";
import { type ImportedWorkflow, insertImported } from "./insert";
import { localFields, referencesOf } from "./rewire";

export interface ImportedBundle {
  workflow: SavedWorkflow;
  children: (SavedWorkflow & { ref: string })[];
}

/**
 * `POST /v1/workflows/import {bundle, connections?}`: every workflow of the bundle is checked as a
 * created one would be (steps, trigger, settings, size), its references to the bundle's workflows
 * and connections resolved, then all are written together (insert.ts). Nothing is written when
 * anything is wrong; each problem names its field under `bundle.` or `connections.`.
 */
export async function importBundle(ctx: ServiceContext, bundle: Bundle, mapped: Record<string, number> = {}): Promise<ImportedBundle> {
  const size = JSON.stringify(bundle).length;
  if (size > MAX_BUNDLE_CHARS) {
    throw new HubError(
      "payload_too_large",
      `A bundle may hold ${MAX_BUNDLE_CHARS} characters of JSON (${describeBytes(MAX_BUNDLE_CHARS)}); this one has ${size}.`,
    );
  }
  const all: { where: string; workflow: BundleWorkflow }[] = [
    { where: "bundle.workflow", workflow: bundle.workflow },
    ...bundle.children.map((workflow, i) => ({ where: `bundle.children.${i}`, workflow })),
  ];

  const refs = new Set<string>();
  const errors: FieldError[] = [];
  const needed = new Map<string, ConnectionRef>();
  for (const ref of bundle.connections_required) needed.set(`${ref.platform}\u0000${ref.name}`, ref);
  for (const { where, workflow } of all) {
    if (refs.has(workflow.ref)) errors.push(field(`${where}.ref`, `Another workflow of the bundle is "${workflow.ref}" too.`));
    refs.add(workflow.ref);
  }
  for (const { where, workflow } of all) {
    const named = referencesOf(workflow);
    for (const problem of named.problems) errors.push(field(`${where}.steps`, problem));
    for (const ref of named.workflows) if (!refs.has(ref)) errors.push(field(`${where}.steps`, `No workflow of the bundle is "${ref}".`));
    for (const ref of named.connections) needed.set(`${ref.platform}\u0000${ref.name}`, ref);
  }
  if (errors.length) throw new HubError("validation_failed", "The bundle's references are not valid.", { errors });
  if (needed.size > 200) throw new HubError("limit_exceeded", "A bundle may name at most 200 connections.");

  const connectionIdOf = await mapConnections(ctx, [...needed.values()], mapped);
  const imported: ImportedWorkflow[] = [];
  for (const { where, workflow } of all) imported.push(await checkedWorkflow(ctx, where, workflow, connectionIdOf));
  const [root, ...children] = await insertImported(ctx, imported);
  return { workflow: root!, children: children.map((row, i) => ({ ...row, ref: imported[i + 1]!.ref })) };
}

/**
 * One workflow of the bundle checked as `createWorkflow` checks a new one. Its references are
 * checked with a stand-in id (the real ones exist only once all are inserted), which changes
 * nothing a check looks at.
 */
async function checkedWorkflow(
  ctx: ServiceContext,
  where: string,
  workflow: BundleWorkflow,
  connectionIdOf: Parameters<typeof localFields>[2],
): Promise<ImportedWorkflow> {
  const draft = localFields(workflow, () => 1, connectionIdOf);
  await checkedSteps(draft.steps, `${where}.steps`);
  const settings = SettingsSchema.safeParse(draft.settings);
  if (!settings.success) {
    const errors = settings.error.issues.map((issue) => field([`${where}.settings`, ...issue.path].join("."), issue.message));
    throw new HubError("validation_failed", "The bundle's workflow settings are not valid.", { errors });
  }
  const trigger = prefixed(where, () => checkedTrigger(workflow.trigger_type, draft.triggerConfig, ctx.config.quotas.minIntervalSeconds));
  const limit = ctx.config.quotas.workflowBytes;
  if (workflowSize({ steps: draft.steps, variables: workflow.variables, settings: draft.settings, metadata: workflow.workflow_metadata }) > limit) {
    throw new HubError("limit_exceeded", `${where} is larger than the ${describeBytes(limit)} a workflow may hold (MAX_WORKFLOW_BYTES).`);
  }
  return {
    ref: workflow.ref,
    name: workflow.name,
    description: workflow.description,
    status: workflow.status ?? "active",
    trigger,
    variables: workflow.variables,
    metadata: workflow.workflow_metadata,
    complete: (idOf) => {
      const local = localFields(workflow, idOf, connectionIdOf);
      // Parsed again for the defaults a saved workflow holds; the checks above already passed.
      return { steps: validateSteps(local.steps).steps, settings: SettingsSchema.parse(local.settings) };
    },
  };
}

/** Runs a check whose problems name fields of a workflow (`trigger_config.…`) and names them under the bundle's workflow instead. */
function prefixed<T>(where: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof HubError && error.errors) {
      throw new HubError(error.code, error.message, { errors: error.errors.map((e) => ({ ...e, field: `${where}.${e.field}` })) });
    }
    throw error;
  }
}

const field = (name: string, message: string): FieldError => ({ location: "body", field: name, message });
