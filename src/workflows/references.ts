import { and, eq, inArray } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { type FieldError, HubError } from "../core/errors";
import { workflows, type Workflow } from "../db/schema";
import { type Step, type WorkflowSettings, nestedStepLists } from "./steps";

/**
 * The workflows a workflow names (its `workflow` steps, `settings.on_failure`) must be the caller's:
 * anyone else's would never run, and an error workflow would silently not start. References the
 * workflow already held are left alone, so one whose target was deleted since can still be edited;
 * its runs say why that target did not run.
 */
export async function checkReferences(ctx: ServiceContext, steps: Step[] | undefined, settings: Record<string, unknown> | undefined, current?: Workflow) {
  const named: { field: string; id: number }[] = [];
  if (steps) workflowStepsIn(steps, "steps", named);
  const onFailure = (settings as WorkflowSettings | undefined)?.on_failure?.workflow_id;
  if (onFailure !== undefined) named.push({ field: "settings.on_failure.workflow_id", id: onFailure });
  const held = new Set<number>();
  if (current) {
    held.add(current.id);
    const before: { field: string; id: number }[] = [];
    workflowStepsIn(current.steps as Step[], "steps", before);
    for (const { id } of before) held.add(id);
    const heldOnFailure = (current.settings as WorkflowSettings).on_failure?.workflow_id;
    if (heldOnFailure !== undefined) held.add(heldOnFailure);
  }
  const toCheck = [...new Set(named.filter(({ id }) => !held.has(id)).map(({ id }) => id))];
  if (toCheck.length === 0) return;
  const owned = new Set<number>();
  // D1 binds at most 100 values a statement.
  for (let i = 0; i < toCheck.length; i += 90) {
    const rows = await ctx.db
      .select({ id: workflows.id })
      .from(workflows)
      .where(and(eq(workflows.userId, ctx.workspace.id), inArray(workflows.id, toCheck.slice(i, i + 90))))
      .all();
    for (const row of rows) owned.add(row.id);
  }
  const errors: FieldError[] = named
    .filter(({ id }) => !held.has(id) && !owned.has(id))
    .map(({ field }) => ({ location: "body", field, message: "No workflow of yours has this id." }));
  if (errors.length) throw new HubError("validation_failed", "The workflow names workflows that are not yours.", { errors });
}

/** The `workflow` steps among `steps` (branches, loops and on_error handlers included), with the field each id sits in. */
function workflowStepsIn(steps: Step[], path: string, found: { field: string; id: number }[]) {
  steps.forEach((step, index) => {
    const here = `${path}.${index}`;
    if (step.type === "workflow") found.push({ field: `${here}.workflow_id`, id: step.workflow_id });
    for (const inner of nestedStepLists(step)) workflowStepsIn(inner.steps, `${here}.${inner.field}`, found);
  });
}
