import { type SQL, and, eq, sql } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import type { Db } from "../db/client";
import { executions } from "../db/schema";

/**
 * A run's descendants (child runs and on_failure runs, at any depth) are counted on the top run
 * of their tree (`descendants`, MAX_RUN_DESCENDANTS). A descendant's insert is guarded by
 * `treeHasRoom` and followed, in the same batch, by `descendantCounted`: a batch is one
 * transaction and D1 runs one at a time, so no two inserts can both take the last place. The
 * count lives on the root's row, so it holds across crashes and isolates (a resumed parent finds
 * the child it started by its id and counts nothing again).
 */
export const treeHasRoom = (root: SQL | string, limit: SQL | number) => sql`coalesce((select descendants from executions where id = ${root}), 0) < ${limit}`;

/** Counts the descendant `childId` on its root, if its insert (and the quota check after it) left its row. */
export function descendantCounted(db: Db, root: SQL | string, childId: SQL | string) {
  return db
    .update(executions)
    .set({ descendants: sql`${executions.descendants} + 1` })
    .where(and(eq(executions.id, root), sql`exists (select 1 from executions where id = ${childId})`));
}

export async function descendantsOf(db: Db, root: string): Promise<number> {
  const row = await db.select({ descendants: executions.descendants }).from(executions).where(eq(executions.id, root)).get();
  return row?.descendants ?? 0;
}

export const descendantsExceeded = (ctx: ServiceContext, root: string) =>
  new HubError(
    "limit_exceeded",
    `The run ${root} has already set off ${ctx.config.quotas.runDescendants} runs (MAX_RUN_DESCENDANTS); child and on_failure runs count at any depth.`,
  );
