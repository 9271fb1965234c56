import { type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "./client";

/**
 * Inserts one row within a per-owner quota that holds under any concurrency.
 *
 * Counting first and inserting after lets every concurrent create pass the same count. So the
 * row goes in first and, in the same batch (one transaction: D1 runs them one at a time), is
 * taken back out if the owner now holds more than `limit` rows matching `held`. Each create sees
 * itself and every create before it, so at most `limit` survive, and a refused create leaves
 * nothing behind. Callers still count first, to refuse the common case before doing any work.
 *
 * `insert` must insert exactly one row or fail (no ON CONFLICT DO NOTHING): the row is found
 * again as the transaction's last insert. `after` runs in the same batch, after the check (a
 * record of the change that looks for the row). Answers the inserted row, or null when the quota
 * refused it.
 */
export async function insertWithinQuota<Row>(
  db: Db,
  insert: BatchItem<"sqlite">,
  table: SQLiteTable,
  held: SQL,
  limit: number,
  after: BatchItem<"sqlite">[] = [],
): Promise<Row | null> {
  const takeBack = db
    .delete(table)
    .where(sql`rowid = last_insert_rowid() and (select count(*) from ${table} where ${held}) > ${limit}`)
    .returning({ removed: sql<number>`1` });
  const [inserted, removed] = (await db.batch([insert, takeBack, ...after])) as unknown as [Row[], unknown[]];
  return removed.length ? null : (inserted[0] ?? null);
}
