import { type Column, type SQL, and, eq, getTableColumns, inArray, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../db/client";
import { slot } from "../db/statement-cache";
import { executionSteps, executions } from "../db/schema";

/**
 * The statements a runner writes with, each guarded by its lease. Their text is built once per
 * shape with named `slot`s (see prepareOnce in db/statement-cache.ts) and bound per use.
 */

export type StepRow = typeof executionSteps.$inferInsert;

export const STEP_COLUMNS = Object.entries(getTableColumns(executionSteps)) as [keyof StepRow, Column][];

/**
 * The rows' columns plus the lease guard's parameters stay within D1's limit of 100 bound
 * parameters: the guard (run id and lease token) is written twice, for the insert and the update.
 */
export const ROWS_PER_STATEMENT = Math.floor((100 - 4) / STEP_COLUMNS.length);

/**
 * The upsert of `rows` checkpoints, with placeholders `<row>.<column>`, guarded by the run's lease:
 * rows are inserted or updated only while the run's row holds it (`INSERT … SELECT … WHERE`), so a
 * runner that lost its lease, or whose deferred start was refused, writes none.
 */
export function checkpointUpsert(db: Db, rows: number) {
  const tuples = Array.from(
    { length: rows },
    (_, r) =>
      sql`(${sql.join(
        STEP_COLUMNS.map(([key]) => slot(`${r}.${key}`)),
        sql`, `,
      )})`,
  );
  const leaseHeld = sql`exists (select 1 from executions where id = ${slot("executionId")} and lease_token = ${slot("token")})`;
  return (
    db
      .insert(executionSteps)
      // VALUES yields the columns in table order, the order of the insert's column list.
      .select(sql`select * from (values ${sql.join(tuples, sql`, `)}) where ${leaseHeld}`)
      .onConflictDoUpdate({
        target: [executionSteps.executionId, executionSteps.stepKey],
        set: {
          status: sql`excluded.status`,
          attempts: sql`excluded.attempts`,
          result: sql`excluded.result`,
          errorMessage: sql`excluded.error_message`,
          resumeAt: sql`excluded.resume_at`,
          finishedAt: sql`excluded.finished_at`,
          startedAt: sql`excluded.started_at`,
          tokensUsed: sql`excluded.tokens_used`,
          logs: sql`excluded.logs`,
          usage: sql`excluded.usage`,
          errorCode: sql`excluded.error_code`,
        },
        setWhere: leaseHeld,
      })
      .toSQL()
  );
}

/** The lease renewal that goes with a flush of checkpoints: it returns the row only while the lease is held. */
export function leaseRenewal(db: Db) {
  return db
    .update(executions)
    .set({ status: "running", leaseUntil: slot("leaseUntil"), updatedAt: slot("now"), storedBytes: sql`${executions.storedBytes} + ${slot("storedDelta")}` })
    .where(and(eq(executions.id, slot("executionId")), inArray(executions.status, ["queued", "running"]), eq(executions.leaseToken, slot("token"))))
    .returning({ id: executions.id })
    .toSQL();
}

/** The final state of a run (`fields` are those its FinalState carries), while the lease is held. */
export function finalStateUpdate(db: Db, fields: string[]) {
  return db
    .update(executions)
    .set({
      ...Object.fromEntries(fields.map((field) => [field, slot(field)])),
      tokensUsed: slot("tokensUsed"),
      storedBytes: sql`${executions.storedBytes} + ${slot("storedDelta")}`,
      finishedAt: slot("now"),
      leaseToken: null,
      leaseUntil: null,
      updatedAt: slot("now"),
    })
    .where(and(eq(executions.id, slot("executionId")), inArray(executions.status, ["queued", "running"]), eq(executions.leaseToken, slot("token"))))
    .returning({ id: executions.id, startedAt: executions.startedAt, updatedAt: executions.updatedAt })
    .toSQL();
}

/**
 * The condition that the run `executionId` is unfinished and still leased with `token`: what the
 * writes that go with a run's end check, in the batch that ends it, so a runner that lost its
 * lease writes none of them. Values or `slot`s.
 */
export const leaseStillHeld = (executionId: unknown, token: unknown): SQL =>
  sql`exists (select 1 from executions where id = ${executionId} and lease_token = ${token} and status in ('queued', 'running'))`;

/** A statement drizzle built, bound as it would bind it in a batch. */
export function asStatement(d1: D1Database, write: BatchItem<"sqlite">): D1PreparedStatement {
  const { sql: text, params } = (write as unknown as { toSQL(): { sql: string; params: unknown[] } }).toSQL();
  return d1.prepare(text).bind(...params);
}
