import { and, eq, lt, notExists } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { prepareOnce, slot } from "../db/statement-cache";
import { executionKeys, executions, type Execution } from "../db/schema";

/**
 * Idempotency keys of run starts: a client's `Idempotency-Key` on an execute, or the key a
 * trigger derives from what fired it. A key is claimed in its run's own insert batch
 * (`keyedStartStatements`), so a repeated request finds the run the first one started.
 */

/** An execute request's `Idempotency-Key`, with a hash of what it asked for. */
export interface IdempotencyKey {
  key: string;
  requestHash: string;
  /** How long the key keeps returning its run (default IDEMPOTENCY_KEY_TTL_MS); see TRIGGER_KEY_PREFIX. */
  ttlMs?: number;
}

/**
 * Keys the hub derives for its triggers start with this; a client's `Idempotency-Key` cannot
 * (it has no spaces), so the two never meet. They are kept for TRIGGER_KEY_TTL_MS, as providers
 * retry a delivery for days.
 */
export const TRIGGER_KEY_PREFIX = "trigger ";
export const TRIGGER_KEY_TTL_MS = 7 * 24 * 3600 * 1000;

/** How long an `Idempotency-Key` keeps returning the run it started. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3600 * 1000;

/**
 * A start with an idempotency key, in one transaction: forget the key if it is past its time,
 * insert the run, claim the key for it, take the row back out if the key was already another
 * run's (a replay), then the quota check. Results in that order: the insert answers the row, the
 * claim answers nothing on a replay, the quota check answers the row it took out.
 */
export function keyedStartStatements(
  ctx: ServiceContext,
  [insert, overQuota]: [insert: D1PreparedStatement, overQuota: D1PreparedStatement],
  idempotency: IdempotencyKey,
  id: string,
  now: number,
): [expire: D1PreparedStatement, insert: D1PreparedStatement, claim: D1PreparedStatement, replayed: D1PreparedStatement, overQuota: D1PreparedStatement] {
  const { db } = ctx;
  const d1 = db.$client;
  const key = { owner: ctx.workspace.id, key: idempotency.key, id };
  return [
    prepareOnce(d1, "start:key-expire", () => keyExpiry(db).toSQL(), { ...key, before: now - (idempotency.ttlMs ?? IDEMPOTENCY_KEY_TTL_MS) }),
    insert,
    prepareOnce(d1, "start:key-claim", () => keyClaim(db).toSQL(), { ...key, hash: idempotency.requestHash }),
    prepareOnce(d1, "start:key-replayed", () => replayedRunRemoval(db).toSQL(), key),
    overQuota,
  ];
}

/** The caller's key, if it is older than its time to live (`before`): a stale key starts afresh. */
const keyExpiry = (db: ServiceContext["db"]) =>
  db.delete(executionKeys).where(and(eq(executionKeys.userId, slot("owner")), eq(executionKeys.key, slot("key")), lt(executionKeys.createdAt, slot("before"))));

/** Claims the key for the new run; answers nothing when another run holds it (a replay). */
const keyClaim = (db: ServiceContext["db"]) =>
  db
    .insert(executionKeys)
    .values({ userId: slot("owner"), key: slot("key"), requestHash: slot("hash"), executionId: slot("id") })
    .onConflictDoNothing()
    .returning({ executionId: executionKeys.executionId });

/** Takes the new run back out when the key is another run's. */
const replayedRunRemoval = (db: ServiceContext["db"]) =>
  db.delete(executions).where(
    and(
      eq(executions.id, slot("id")),
      notExists(
        db
          .select({ one: executionKeys.key })
          .from(executionKeys)
          .where(and(eq(executionKeys.userId, slot("owner")), eq(executionKeys.key, slot("key")), eq(executionKeys.executionId, slot("id")))),
      ),
    ),
  );

/** The run an idempotency key started; the same key for a different request is refused. */
export async function firstRunOf(ctx: ServiceContext, idempotency: IdempotencyKey): Promise<Execution> {
  const row = await ctx.db
    .select({ requestHash: executionKeys.requestHash, execution: executions })
    .from(executionKeys)
    .innerJoin(executions, eq(executions.id, executionKeys.executionId))
    .where(and(eq(executionKeys.userId, ctx.workspace.id), eq(executionKeys.key, idempotency.key)))
    .get();
  if (!row) throw new HubError("conflict", "A request with this Idempotency-Key is being handled; retry in a moment.");
  if (row.requestHash !== idempotency.requestHash) {
    throw new HubError("validation_failed", "This Idempotency-Key was used with a different request; use a new key for a new request.", {
      errors: [{ location: "header", field: "Idempotency-Key", message: "Already used for a different request." }],
    });
  }
  return row.execution;
}
