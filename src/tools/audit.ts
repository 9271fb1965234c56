import type { ServiceContext } from "../core/context";
import { and, desc, eq, getTableColumns, lt } from "drizzle-orm";
import type { Db } from "../db/client";
import { auditLogs, type AuditLog } from "../db/schema";
import { redactArguments } from "./redact";
import { loggableError } from "../lib/safe-log";
import { afterThisTurn } from "../lib/after-this-turn";

export interface AuditEntry {
  userId: number;
  credentialId: string;
  callId: string;
  tool: string;
  connectionId: number | null;
  arguments: unknown;
  outcome: "success" | "error";
  errorMessage: string | null;
  durationMs: number;
  source: string;
}

/**
 * Writes a tool call's audit record after the answer has gone, with the records of other calls
 * that ended in this isolate meanwhile: they are gathered until this turn of work is over and the
 * previous write is done (`writeWhenFree`), then written several to a statement in one batch,
 * instead of a D1 round trip per call.
 *
 * The promise settles once the record is stored or given up on; a caller hands it to `waitUntil`,
 * so the invocation lives until then. Reading the log here waits for the records under way, so
 * a caller that lists its calls right after making them finds them. A failed batch is written again record by record (one bad
 * record, say of an account deleted meanwhile, must not cost the others); a record that fails
 * twice is logged by call id. The promise never rejects.
 */
export function recordAudit(db: Db, entry: AuditEntry): Promise<void> {
  let gathering = gatheringFor.get(db);
  if (!gathering) {
    const rows: AuditRow[] = [];
    const written = writeWhenFree(db, rows);
    gathering = { rows, written };
    gatheringFor.set(db, gathering);
    underWay.add(written);
    void written.then(() => underWay.delete(written));
  }
  gathering.rows.push({ ...entry, arguments: redactArguments(entry.arguments) });
  return gathering.written;
}

/**
 * Group commit: the gathered rows are written once the answer has gone and no other write of this
 * database is going on, so under load each write carries the records of every call that ended
 * while the previous one was stored. Everything runs in timers this call set, never as the
 * continuation of another request's write: the runtime ties work to the request that started it,
 * and a request that has ended runs nothing more.
 */
function writeWhenFree(db: Db, rows: AuditRow[]): Promise<void> {
  return new Promise<void>((resolve) => {
    const attempt = () => {
      if (writing.has(db)) return void setTimeout(attempt, 1);
      writing.add(db);
      void writeGathered(db, rows).finally(() => {
        writing.delete(db);
        resolve();
      });
    };
    void afterThisTurn().then(attempt);
  });
}

type AuditRow = typeof auditLogs.$inferInsert;

/** The records waiting for their write, per database (one per isolate, except in tests). */
const gatheringFor = new Map<Db, { rows: AuditRow[]; written: Promise<void> }>();
/** Databases with an audit write going on: the next one waits for it. */
const writing = new Set<Db>();
/** Writes gathering or going on. */
const underWay = new Set<Promise<void>>();

/** A row's columns stay within D1's limit of 100 bound parameters per statement. */
const ROWS_PER_STATEMENT = Math.floor(100 / Object.keys(getTableColumns(auditLogs)).length);

async function writeGathered(db: Db, rows: AuditRow[]): Promise<void> {
  gatheringFor.delete(db);
  const statements = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) statements.push(db.insert(auditLogs).values(rows.slice(i, i + ROWS_PER_STATEMENT)));
  try {
    await db.batch(statements as [(typeof statements)[0], ...typeof statements]);
  } catch {
    await Promise.all(
      rows.map((row) =>
        db
          .insert(auditLogs)
          .values(row)
          .catch((error) =>
            console.error(JSON.stringify({ level: "error", message: "could not write the audit record", call_id: row.callId, error: loggableError(error) })),
          ),
      ),
    );
  }
}

/** Waits for the records this isolate is about to write, so a caller reads its own calls. */
const recordsUnderWay = () => Promise.all(underWay);

export async function listAudit(ctx: ServiceContext, limit: number, beforeId?: number): Promise<AuditLog[]> {
  await recordsUnderWay();
  return ctx.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.userId, ctx.user.id), beforeId ? lt(auditLogs.id, beforeId) : undefined))
    .orderBy(desc(auditLogs.id))
    .limit(limit)
    .all();
}

export function presentAudit(row: AuditLog) {
  return {
    id: row.id,
    call_id: row.callId,
    tool: row.tool,
    connection_id: row.connectionId,
    credential_id: row.credentialId,
    source: row.source,
    arguments: row.arguments,
    outcome: row.outcome,
    error_message: row.errorMessage,
    duration_ms: row.durationMs,
    created_at: row.createdAt.toISOString(),
  };
}
