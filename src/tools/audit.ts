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
 * previous write is done, then written several to a statement in one batch (group commit),
 * instead of a D1 round trip per call.
 *
 * The promise settles once the record is stored or given up on; a caller hands it to `waitUntil`,
 * so the invocation lives until then. Reading the log here waits (a bounded time) for the records
 * under way, so a caller that lists its calls right after making them finds them. A failed batch
 * is written again record by record (one bad record, say of an account deleted meanwhile, must
 * not cost the others); a record that fails twice is logged by call id. The promise never rejects.
 */
export function recordAudit(db: Db, entry: AuditEntry): Promise<void> {
  let gathering = gatheringFor.get(db);
  const first = !gathering;
  if (!gathering) {
    gathering = new Gathering();
    gatheringFor.set(db, gathering);
    const { written } = gathering;
    underWay.add(written);
    void written.then(() => underWay.delete(written));
  }
  gathering.rows.push({ ...entry, arguments: redactArguments(entry.arguments) });
  return settle(db, gathering, first);
}

type AuditRow = typeof auditLogs.$inferInsert;

/** Records gathering for one write, which whichever of their callers takes them first does. */
class Gathering {
  rows: AuditRow[] = [];
  /** When its write (the latest, if it had to be written again) started; undefined while it gathers. */
  takenAt?: number;
  finished = false;
  /** Resolves once the batch's write has finished (stored, or given up record by record). */
  readonly written: Promise<void>;
  private resolve!: () => void;
  constructor() {
    this.written = new Promise<void>((resolve) => (this.resolve = resolve));
  }
  finish() {
    this.finished = true;
    this.resolve();
  }
}

/**
 * A write of a batch that has not finished after this long is taken for dead (its request was cut
 * off): it no longer holds up the next write, and any of its callers writes the batch again (the
 * unique call id keeps a record that did get stored from being stored twice). A batch nobody has
 * taken by then is taken by any of its callers.
 */
export const TAKEOVER_MS = 1_000;

/**
 * Settles one caller's record. Everything runs in timers this caller set: the runtime ties work to
 * the request that started it, and a request that has ended runs nothing more, so no caller may
 * depend on another's request to write its record. The batch's first caller takes it once the
 * answer has gone and no other write is going on (looking every millisecond); every other caller
 * takes it over if it is still untaken, or its write unfinished, after TAKEOVER_MS.
 */
function settle(db: Db, gathering: Gathering, first: boolean): Promise<void> {
  return new Promise<void>((resolve) => {
    void gathering.written.then(resolve);
    const attempt = () => {
      if (gathering.finished) return;
      if (gathering.takenAt !== undefined && Date.now() - gathering.takenAt < TAKEOVER_MS) return void setTimeout(attempt, TAKEOVER_MS);
      const since = writingSince.get(db);
      if (gathering.takenAt === undefined && since !== undefined && Date.now() - since < TAKEOVER_MS) {
        return void setTimeout(attempt, first ? 1 : TAKEOVER_MS);
      }
      if (gatheringFor.get(db) === gathering) gatheringFor.delete(db);
      const startedAt = Date.now();
      gathering.takenAt = startedAt;
      writingSince.set(db, startedAt);
      void writeGathered(db, gathering.rows).finally(() => {
        if (writingSince.get(db) === startedAt) writingSince.delete(db);
        gathering.finish();
      });
    };
    if (first) void afterThisTurn().then(attempt);
    else setTimeout(attempt, TAKEOVER_MS);
  });
}

/** The records waiting for their write, per database (one per isolate, except in tests). */
const gatheringFor = new Map<Db, Gathering>();
/** When the audit write going on, per database, started: the next one waits for it. */
const writingSince = new Map<Db, number>();
/** Writes gathering or going on. */
const underWay = new Set<Promise<void>>();

/** A row's columns stay within D1's limit of 100 bound parameters per statement. */
const ROWS_PER_STATEMENT = Math.floor(100 / Object.keys(getTableColumns(auditLogs)).length);

async function writeGathered(db: Db, rows: AuditRow[]): Promise<void> {
  const statements = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    statements.push(
      db
        .insert(auditLogs)
        .values(rows.slice(i, i + ROWS_PER_STATEMENT))
        .onConflictDoNothing({ target: auditLogs.callId }),
    );
  }
  try {
    await db.batch(statements as [(typeof statements)[0], ...typeof statements]);
  } catch {
    await Promise.all(
      rows.map((row) =>
        db
          .insert(auditLogs)
          .values(row)
          .onConflictDoNothing({ target: auditLogs.callId })
          .catch((error) =>
            console.error(JSON.stringify({ level: "error", message: "could not write the audit record", call_id: row.callId, error: loggableError(error) })),
          ),
      ),
    );
  }
}

/**
 * Waits for the records this isolate is about to write, so a caller reads its own calls; never
 * longer than a write taken for dead would hold them.
 */
const recordsUnderWay = () => Promise.race([Promise.all(underWay), new Promise((resolve) => setTimeout(resolve, 2 * TAKEOVER_MS))]);

export async function listAudit(ctx: ServiceContext, limit: number, beforeId?: number): Promise<AuditLog[]> {
  await recordsUnderWay();
  return ctx.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.userId, ctx.workspace.id), beforeId ? lt(auditLogs.id, beforeId) : undefined))
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
