import { z } from "@hono/zod-openapi";
import { and, desc, eq, lt } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { notFound } from "../core/errors";
import { workflowVersions, type Workflow } from "../db/schema";
import { decodeCursor, paginate } from "../http/pagination";
import { getOwnedWorkflow, updateWorkflow } from "./service";

const VersionCursor = z.object({ version: z.number().int() });

/**
 * One page of the versions kept of one of the caller's workflows (the newest MAX_WORKFLOW_VERSIONS),
 * newest first, each with its steps: a page at a time, as each may hold up to MAX_WORKFLOW_BYTES.
 */
export async function listVersions(ctx: ServiceContext, workflowId: number, query: { limit: number; cursor?: string }) {
  const workflow = await getOwnedWorkflow(ctx, workflowId);
  const after = decodeCursor(query.cursor, VersionCursor);
  const rows = await ctx.db
    .select()
    .from(workflowVersions)
    .where(and(eq(workflowVersions.workflowId, workflow.id), after ? lt(workflowVersions.version, after.version) : undefined))
    .orderBy(desc(workflowVersions.version))
    .limit(query.limit + 1)
    .all();
  const { page, nextCursor } = paginate(rows, query.limit, (row) => ({ version: row.version }));
  return {
    data: page.map((row) => ({
      version: row.version,
      current: row.version === workflow.version,
      created_at: row.createdAt.toISOString(),
      steps: row.steps as Record<string, unknown>[],
    })),
    next_cursor: nextCursor,
  };
}

/**
 * Makes an older version's steps current again. History is never rewritten: the restored steps
 * become a new version (unless they are the current steps already). Runs already started keep
 * the version they started with. A version no longer kept is not found, as an unknown one.
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
