import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import type { Execution, Workflow } from "../db/schema";
import { randomToken } from "../lib/crypto";
import type { DebounceSettings } from "../workflows/flow-control-settings";
import { type RunRequest, type StartAlongside, decodeRow, insertExecution } from "./start";
import { type IdempotencyKey, IDEMPOTENCY_KEY_TTL_MS, firstRunOf } from "./start-keys";

/**
 * Debounced starts (settings.debounce). The starts of one key within a window collapse into one
 * run, and that run is in D1 from the window's first start: a queued execution whose lease time
 * (`lease_until`) is its not-before time, so no runner takes it and the sweep does not queue it
 * earlier. `debounce_windows` points each (workflow, key) at it. A later start joins the window
 * in one transaction that replaces the run's input and moves its time, only while the run is still
 * unleased and not yet due; once a runner has taken it the next start opens a new window. Each
 * start is acknowledged only after its transaction, so a hub killed at any point loses no start
 * and starts no second run: what was written is whole, and the sweep runs it when it is due.
 */

/** Open windows a workflow may hold at once (distinct keys waiting): its state stays bounded. */
export const MAX_PENDING_DEBOUNCE_KEYS = 1000;

/** A start that did not join or open a window because another start changed it first: tried again. */
const CONTENDED_TRIES = 4;

export interface DebouncedStart {
  execution: Execution;
  replayed?: boolean;
  /** When the run is due (the delay of its queue message). */
  firesAt: number;
}

/**
 * Joins the key's open window, or opens one: answers the window's run. `ruledOpen` (the rate
 * limit) is asked only when a window opens, as that is when a run is added; it answers the
 * earliest time the new run may start, or throws.
 */
export async function debounceStart(
  ctx: ServiceContext,
  workflow: Workflow,
  run: RunRequest,
  debounce: DebounceSettings,
  keyHash: string,
  options: { idempotency?: IdempotencyKey; also?: StartAlongside; ruledOpen: () => Promise<number> },
): Promise<DebouncedStart> {
  for (let attempt = 0; attempt < CONTENDED_TRIES; attempt++) {
    const open = await openWindowOf(ctx, workflow.id, keyHash, Date.now());
    if (open) {
      const joined = await join(ctx, workflow, run, debounce, keyHash, open, options);
      if (joined) return joined;
      continue;
    }
    const opened = await openWindow(ctx, workflow, run, debounce, keyHash, options);
    if (opened) return opened;
  }
  throw new HubError("conflict", "Many starts of this debounce key arrived at once; try again.");
}

/** The run of the key's window while it may still be joined (unleased, not yet due). */
async function openWindowOf(ctx: ServiceContext, workflowId: number, keyHash: string, now: number) {
  return ctx.db.$client
    .prepare(
      `SELECT w.execution_id AS id FROM debounce_windows w JOIN executions e ON e.id = w.execution_id
       WHERE w.workflow_id = ?1 AND w.key_hash = ?2 AND ${JOINABLE}`,
    )
    .bind(workflowId, keyHash, now)
    .first<{ id: string }>();
}

/** The window's run may still take a start: queued, no runner, not yet due (`?3` is now). */
const JOINABLE = `e.status = 'queued' AND e.lease_token IS NULL AND e.lease_until > ?3`;

/**
 * One transaction: mark the window with this start's nonce (only while its run is joinable and,
 * with a key, the key is new), fail the whole batch if that did not land, then replace the run's
 * input and time, claim the key for it, and write the door's own statements (a webhook's spent
 * signature and events-log row). Undefined when the window closed meanwhile.
 */
async function join(
  ctx: ServiceContext,
  workflow: Workflow,
  run: RunRequest,
  debounce: DebounceSettings,
  keyHash: string,
  open: { id: string },
  { idempotency, also }: { idempotency?: IdempotencyKey; also?: StartAlongside },
): Promise<DebouncedStart | undefined> {
  const d1 = ctx.db.$client;
  const now = Date.now();
  const nonce = randomToken(12);
  const wf = workflow.id;
  const delay = debounce.seconds * 1000;
  const cap = debounce.max_seconds === undefined ? null : debounce.max_seconds * 1000;
  const keyed = idempotency ? `AND NOT EXISTS (SELECT 1 FROM execution_keys WHERE user_id = ?7 AND key = ?8)` : "AND ?7 IS NULL AND ?8 IS NULL";
  const statements: D1PreparedStatement[] = [];
  if (idempotency) {
    statements.push(
      d1
        .prepare("DELETE FROM execution_keys WHERE user_id = ?1 AND key = ?2 AND created_at < ?3")
        .bind(ctx.workspace.id, idempotency.key, now - (idempotency.ttlMs ?? IDEMPOTENCY_KEY_TTL_MS)),
    );
  }
  statements.push(
    d1
      .prepare(
        `UPDATE debounce_windows SET last_start = ?4,
           fires_at = CASE WHEN ?6 IS NULL THEN ?3 + ?5 ELSE min(?3 + ?5, first_at + ?6) END
         WHERE workflow_id = ?1 AND key_hash = ?2 AND execution_id = ?9
           AND EXISTS (SELECT 1 FROM executions e WHERE e.id = ?9 AND ${JOINABLE}) ${keyed}`,
      )
      .bind(wf, keyHash, now, nonce, delay, cap, idempotency ? ctx.workspace.id : null, idempotency?.key ?? null, open.id),
    landedOrFail(d1, wf, keyHash, "last_start", nonce),
    d1
      .prepare(
        `UPDATE executions SET input = ?4, updated_at = ?5,
           lease_until = (SELECT fires_at FROM debounce_windows WHERE workflow_id = ?1 AND key_hash = ?2)
         WHERE id = ?3 RETURNING *`,
      )
      .bind(wf, keyHash, open.id, JSON.stringify(run.input), now),
  );
  if (idempotency) {
    statements.push(
      d1
        .prepare("INSERT INTO execution_keys (user_id, key, request_hash, execution_id) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING")
        .bind(ctx.workspace.id, idempotency.key, idempotency.requestHash, open.id),
    );
  }
  statements.push(...(also?.after?.(open.id) ?? []));
  try {
    const results = await d1.batch(statements);
    const row = results[idempotency ? 3 : 2]!.results[0] as Record<string, unknown>;
    const execution = decodeRow(row);
    return { execution, firesAt: execution.leaseUntil!.getTime() };
  } catch (error) {
    if (!isWindowMissed(error)) throw error;
    // A key already used: its first run is the answer (the window may be that run's, or not).
    if (idempotency) {
      const first = await firstRunIfAny(ctx, idempotency);
      if (first) return { execution: first, replayed: true, firesAt: first.leaseUntil?.getTime() ?? now };
    }
    return undefined;
  }
}

/**
 * A new run for the key, queued until `seconds` from now (or later, if the rate limit says so),
 * inserted with the window's row in the run's own start transaction: the window is taken over
 * only from a run that can no longer be joined, and at most MAX_PENDING_DEBOUNCE_KEYS windows of
 * the workflow may be waiting. Undefined when another start opened the window first.
 */
async function openWindow(
  ctx: ServiceContext,
  workflow: Workflow,
  run: RunRequest,
  debounce: DebounceSettings,
  keyHash: string,
  { idempotency, also, ruledOpen }: { idempotency?: IdempotencyKey; also?: StartAlongside; ruledOpen: () => Promise<number> },
): Promise<DebouncedStart | undefined> {
  const d1 = ctx.db.$client;
  const now = Date.now();
  const nonce = randomToken(12);
  const wf = workflow.id;
  const firesAt = Math.max(now + debounce.seconds * 1000, await ruledOpen());
  const windowStatements = (id: string) => [
    d1
      .prepare(
        `INSERT INTO debounce_windows (workflow_id, key_hash, execution_id, first_at, fires_at, last_start)
         SELECT ?1, ?2, ?3, ?4, ?5, ?6
         WHERE EXISTS (SELECT 1 FROM executions WHERE id = ?3)
           AND (SELECT count(*) FROM debounce_windows WHERE workflow_id = ?1 AND fires_at > ?4) < ?7
         ON CONFLICT (workflow_id, key_hash) DO UPDATE SET execution_id = excluded.execution_id, first_at = excluded.first_at,
           fires_at = excluded.fires_at, last_start = excluded.last_start
         WHERE NOT EXISTS (SELECT 1 FROM executions e WHERE e.id = debounce_windows.execution_id
           AND e.status = 'queued' AND e.lease_token IS NULL AND e.lease_until > ?4)`,
      )
      .bind(wf, keyHash, id, now, firesAt, nonce, MAX_PENDING_DEBOUNCE_KEYS),
    // A run the start kept (not taken back out by the quota or a replayed key) must have its window.
    d1
      .prepare(
        `INSERT INTO debounce_windows (workflow_id, key_hash, execution_id, first_at, fires_at, last_start)
         SELECT ?1, ?2, NULL, 0, 0, '' WHERE EXISTS (SELECT 1 FROM executions WHERE id = ?3)
           AND NOT EXISTS (SELECT 1 FROM debounce_windows WHERE workflow_id = ?1 AND key_hash = ?2 AND last_start = ?4)`,
      )
      .bind(wf, keyHash, id, nonce),
  ];
  try {
    const { execution, replayed } = await insertExecution(ctx, workflow, { ...run, notBefore: new Date(firesAt) }, undefined, idempotency, {
      after: (id) => [...windowStatements(id), ...(also?.after?.(id) ?? [])],
    });
    return { execution, replayed, firesAt: replayed ? (execution.leaseUntil?.getTime() ?? now) : firesAt };
  } catch (error) {
    if (!isWindowMissed(error)) throw error;
    const pending = await ctx.db.$client
      .prepare("SELECT count(*) AS n FROM debounce_windows WHERE workflow_id = ?1 AND fires_at > ?2")
      .bind(wf, now)
      .first<{ n: number }>();
    if ((pending?.n ?? 0) >= MAX_PENDING_DEBOUNCE_KEYS) {
      throw new HubError(
        "rate_limited",
        `The workflow has ${MAX_PENDING_DEBOUNCE_KEYS} debounce keys waiting already; a start with a new key can be accepted once some have run.`,
      );
    }
    return undefined;
  }
}

/**
 * A statement that fails its batch (SQLite refuses a null execution_id) unless this start's mark
 * is on the key's window: the statements after it, and those before, are then not written.
 */
function landedOrFail(d1: D1Database, workflowId: number, keyHash: string, column: "last_start", value: string) {
  return d1
    .prepare(
      `INSERT INTO debounce_windows (workflow_id, key_hash, execution_id, first_at, fires_at, last_start)
       SELECT ?1, ?2, NULL, 0, 0, '' WHERE NOT EXISTS (SELECT 1 FROM debounce_windows WHERE workflow_id = ?1 AND key_hash = ?2 AND ${column} = ?3)`,
    )
    .bind(workflowId, keyHash, value);
}

/** The failure landedOrFail (or the open's own check) causes, told apart from any other. */
function isWindowMissed(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e.message.includes("debounce_windows.")) return true;
  }
  return false;
}

async function firstRunIfAny(ctx: ServiceContext, idempotency: IdempotencyKey): Promise<Execution | undefined> {
  try {
    return await firstRunOf(ctx, idempotency);
  } catch (error) {
    if (error instanceof HubError && error.code === "conflict") return undefined;
    throw error;
  }
}
