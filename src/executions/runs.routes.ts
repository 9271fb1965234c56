import { z } from "@hono/zod-openapi";
import { authedRoute, conflictError, createRouter, notFoundError } from "../http/router";
import { pageOf, paginate } from "../http/pagination";
import { ExecutionSchema } from "../workflows/schemas";
import { RunListQuery, listRuns } from "./list";
import { presentExecution } from "./present";
import { deleteRun } from "./retention";

const list = authedRoute("data:read", {
  method: "get",
  path: "/executions",
  tags: ["Workflows"],
  summary: "List your executions across workflows",
  description:
    "Your runs of every workflow, newest first (by when they started), paged, without their step records (GET /v1/executions/{execution_id} has them). Each filter narrows the list: `status`, `workflow_id`, `agent_id`, `trigger`, `started_after` / `started_before` (ISO 8601 times), and `q`, words that the run's input or error message must all hold. An unknown `status` or `trigger` is 422.",
  request: { query: RunListQuery },
  responses: { 200: { description: "Executions, newest first", content: { "application/json": { schema: pageOf(ExecutionSchema) } } } },
});

const remove = authedRoute("data:write", {
  method: "delete",
  path: "/executions/{execution_id}",
  tags: ["Workflows"],
  summary: "Delete a finished execution",
  description:
    "Deletes a succeeded, failed or cancelled run with its step records, spans and notifications (finished runs are also deleted on their own after the retention period: `settings.retention_days`, else EXECUTION_RETENTION_DAYS). A run that has not finished answers 409, as does a finished child run whose parent has not finished, a run whose child or on_failure run is still going, and a run whose notification is still being delivered. Model usage stays in the ledger.",
  request: {
    params: z.object({
      execution_id: z
        .string()
        .max(64)
        .openapi({ param: { name: "execution_id", in: "path" } }),
    }),
  },
  responses: { 204: { description: "Deleted" }, ...notFoundError, ...conflictError },
});

export const runRoutes = createRouter()
  .openapi(list, async (c) => {
    const { limit, cursor, ...filters } = c.req.valid("query");
    const rows = await listRuns(c.var.ctx, filters, limit + 1, cursor);
    const { page, nextCursor } = paginate(rows, limit, (row) => ({ c: row.createdAt.getTime(), id: row.id }));
    return c.json({ data: await Promise.all(page.map((row) => presentExecution(c.var.ctx.db, row, false))), next_cursor: nextCursor }, 200);
  })
  .openapi(remove, async (c) => {
    await deleteRun(c.var.ctx, c.req.valid("param").execution_id);
    return c.body(null, 204);
  });
