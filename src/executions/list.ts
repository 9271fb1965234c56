import { z } from "@hono/zod-openapi";
import { and, desc, eq, getTableColumns, gte, lt, or } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import type { Db } from "../db/client";
import { validationFailed } from "../core/errors";
import { type Execution, executions } from "../db/schema";
import { PageQuery, decodeCursor } from "../http/pagination";
import { runsMatching, searchTerms } from "./search";

export const RUN_STATUSES = ["queued", "running", "waiting", "succeeded", "failed", "cancelled"] as const;
export const RUN_TRIGGERS = ["manual", "schedule", "webhook", "poll", "child", "on_failure", "retry", "replay"] as const;

const queryParam = (name: string) => ({ param: { name, in: "query" as const } });
const Instant = z.iso.datetime({ offset: true });

/** The filters of GET /v1/executions (and the dashboard's runs page); each narrows the list. */
export const RunFilters = z.object({
  status: z.enum(RUN_STATUSES).optional().openapi(queryParam("status")),
  workflow_id: z.coerce.number().int().positive().optional().openapi(queryParam("workflow_id")),
  agent_id: z.string().min(1).max(64).optional().openapi(queryParam("agent_id")),
  trigger: z
    .enum(RUN_TRIGGERS)
    .optional()
    .openapi({
      ...queryParam("trigger"),
      description:
        "What started the run: `manual` (the API, the dashboard, an agent run by hand), an agent's `schedule`, `webhook` or `poll`, `child` (a `workflow` step), `on_failure` (an error workflow), `retry`, `replay`.",
    }),
  started_after: Instant.optional().openapi({ ...queryParam("started_after"), description: "Runs started (created) at or after this time." }),
  started_before: Instant.optional().openapi({ ...queryParam("started_before"), description: "Runs started (created) before this time." }),
  q: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .openapi({
      ...queryParam("q"),
      description: "Runs whose input or error message holds every word of it (as a word or the start of one; case and accents ignored).",
    }),
});
export type RunFilters = z.infer<typeof RunFilters>;

export const RunListQuery = PageQuery.extend(RunFilters.shape);

const Position = z.object({ c: z.number(), id: z.string() });

/** What a list shows of a run: every column but the copies of its workflow (steps, settings, variables), which can be large. */
const { steps: _steps, settings: _settings, variables: _variables, ...listedColumns } = getTableColumns(executions);

/**
 * The caller's runs across workflows, newest first (created_at, then id), narrowed by `filters`;
 * `limit` rows after `cursor` (the last row's position). Only the caller's runs are ever read.
 */
export async function listRuns(ctx: ServiceContext, filters: RunFilters, limit: number, cursor: string | undefined): Promise<Execution[]> {
  const terms = filters.q === undefined ? undefined : searchTerms(filters.q);
  if (terms?.length === 0) throw validationFailed([{ location: "query", field: "q", message: "Give at least one word (letters or digits)." }]);
  const rows = await runsQuery(ctx.db, ctx.workspace.id, filters, limit, decodeCursor(cursor, Position)).all();
  return rows.map((row) => ({ ...row, steps: [], settings: {}, variables: {} }));
}

/**
 * The list's one statement. Each filter has an index that keeps the list in its order (migration
 * 0045), so a page reads about `limit` rows whatever the account's size; `q` reads the caller's
 * matching entries of the search index first.
 */
export function runsQuery(db: Db, userId: number, filters: RunFilters, limit: number, before?: z.infer<typeof Position>) {
  const terms = filters.q === undefined ? undefined : searchTerms(filters.q);
  return db
    .select(listedColumns)
    .from(executions)
    .where(
      and(
        eq(executions.userId, userId),
        filters.status && eq(executions.status, filters.status),
        filters.workflow_id !== undefined ? eq(executions.workflowId, filters.workflow_id) : undefined,
        filters.agent_id !== undefined ? eq(executions.agentId, filters.agent_id) : undefined,
        filters.trigger && eq(executions.trigger, filters.trigger),
        filters.started_after ? gte(executions.createdAt, new Date(filters.started_after)) : undefined,
        filters.started_before ? lt(executions.createdAt, new Date(filters.started_before)) : undefined,
        terms?.length ? runsMatching(userId, terms) : undefined,
        before ? or(lt(executions.createdAt, new Date(before.c)), and(eq(executions.createdAt, new Date(before.c)), lt(executions.id, before.id))) : undefined,
      ),
    )
    .orderBy(desc(executions.createdAt), desc(executions.id))
    .limit(limit);
}
