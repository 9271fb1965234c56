import { and, desc, eq } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { notFound } from "../core/errors";
import { workflowVersions, type Workflow } from "../db/schema";
import { getOwnedWorkflow, updateWorkflow } from "./service";

/** The versions of one of the caller's workflows, newest first, each with its steps. */
export async function listVersions(ctx: ServiceContext, workflowId: number) {
  const workflow = await getOwnedWorkflow(ctx, workflowId);
  const rows = await ctx.db.select().from(workflowVersions).where(eq(workflowVersions.workflowId, workflow.id)).orderBy(desc(workflowVersions.version)).all();
  return rows.map((row) => ({
    version: row.version,
    current: row.version === workflow.version,
    created_at: row.createdAt.toISOString(),
    steps: row.steps as Record<string, unknown>[],
  }));
}

/**
 * Makes an older version's steps current again. History is never rewritten: the restored steps
 * become a new version (unless they are the current steps already). Runs already started keep
 * the version they started with.
 */
export async function restoreVersion(ctx: ServiceContext, workflowId: number, version: number): Promise<Workflow> {
  const workflow = await getOwnedWorkflow(ctx, workflowId);
  const row = await ctx.db
    .select()
    .from(workflowVersions)
    .where(and(eq(workflowVersions.workflowId, workflow.id), eq(workflowVersions.version, version)))
    .get();
  if (!row) throw notFound(`Version ${version} of workflow ${workflow.id}`);
  return updateWorkflow(ctx, workflow.id, { steps: row.steps });
}
