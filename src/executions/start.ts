import type { Runtime, ServiceContext } from "../core/context";
import { type Column, type SQL, and, asc, desc, eq, getTableColumns, inArray, isNull, lt, notExists, notInArray, or, sql } from "drizzle-orm";
import { insertSelectList } from "../db/insert-select";
import { encodeFor, prepareOnce, slot } from "../db/statement-cache";
import type { Db } from "../db/client";
import { executionKeys, executionSteps, executions, workflows, type Execution, type ExecutionStep, type Workflow } from "../db/schema";
import { HubError, notFound } from "../core/errors";
import { randomToken } from "../lib/crypto";
import { enqueueExecution } from "./queue-consumer";
import { getOwnedWorkflow } from "./service";
import { z } from "@hono/zod-openapi";
import { decodeCursor } from "../http/pagination";
import { isFinished, logInlineFailure, runAndWait, runNow, watchUntilEnded } from "./run-now";
import { type EndedRun, LEASE_MS, newLeaseToken } from "./runner";
import type { WorkflowSettings } from "./steps";
import { wakeParent } from "./child-runs";
import type { ExecutionMessage } from "../core/messages";
import { runWithDeferredStart } from "./deferred-start";

/**
 * Starts a run of the workflow as it is now (its version and steps are pinned) and queues it.
 * Schedules and webhooks come through here; REST and manual runs through `startAndRun`, which
 * runs it right away.
 */
export async function startExecution(ctx: ServiceContext, workflow: WorkflowRef, run: RunRequest): Promise<Execution> {
  const { execution } = await insertExecution(ctx, workflow, run);
  await enqueueExecution(ctx.bindings.WORKFLOW_RUNS, execution.id);
  return execution;
}

/** An execute request's `Idempotency-Key`, with a hash of what it asked for. */
export interface IdempotencyKey {
  key: string;
  requestHash: string;
}

/** How long an `Idempotency-Key` keeps returning the run it started. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3600 * 1000;

/**
 * Every run starts here, whatever the door, so the rules live here: a paused or archived
 * workflow does not run, and an account has a bounded number of unfinished runs. With
 * `leaseToken`, the row is born leased to the caller, who runs it at once. With an idempotency
 * key already used by this user within 24 h, nothing starts: the first run is returned (`replayed`).
 */
export async function insertExecution(
  ctx: ServiceContext,
  workflow: WorkflowRef,
  run: RunRequest,
  leaseToken?: string,
  idempotency?: IdempotencyKey,
): Promise<{ execution: Execution; replayed: boolean }> {
  const { db } = ctx;
  // The key's row refers to the new run, so with a key the workflow is read first: a run that
  // cannot start must not reach the key's insert.
  if (idempotency && typeof workflow === "number") workflow = await getOwnedWorkflow(ctx, workflow);
  if (typeof workflow !== "number") assertRunnable(workflow);
  const now = Date.now();
  const limit = ctx.config.quotas.runningExecutionsPerUser;
  const values = newRunValues(ctx, run, now, leaseToken);
  const { id } = values;
  // Insert, then take the row back out if the account is now over its quota, in one batch (one
  // transaction), so a refused start leaves nothing behind.
  if (!idempotency && typeof workflow === "number") {
    const [execution, refused] = await startFromWorkflow(ctx, workflow, values);
    if (!execution) throw await whyNotRunnable(ctx, workflow, values.rootExecutionId);
    if (refused) throw quotaExceeded(limit);
    return { execution, replayed: false };
  }
  const insert = (
    typeof workflow === "number" ? insertFromWorkflow(ctx, workflow, values) : db.insert(executions).values({ ...values, ...copiedFrom(workflow) })
  ).returning();
  const overQuota = removeIfOverQuota(ctx, id);
  if (!idempotency) {
    const [[execution], refused] = await db.batch([insert, overQuota]);
    if (!execution) throw await whyNotRunnable(ctx, workflow);
    if (refused.length) throw quotaExceeded(limit);
    return { execution, replayed: false };
  }

  // With a key, in the same transaction: forget the key if it is older than a day, claim it, and
  // take the new row back out if the key already belonged to another run (a replay).
  const keyOf = and(eq(executionKeys.userId, ctx.user.id), eq(executionKeys.key, idempotency.key));
  const [, [execution], claimed, , refused] = await db.batch([
    db.delete(executionKeys).where(and(keyOf, lt(executionKeys.createdAt, new Date(now - IDEMPOTENCY_KEY_TTL_MS)))),
    insert,
    db
      .insert(executionKeys)
      .values({ userId: ctx.user.id, key: idempotency.key, requestHash: idempotency.requestHash, executionId: id })
      .onConflictDoNothing()
      .returning({ executionId: executionKeys.executionId }),
    db.delete(executions).where(
      and(
        eq(executions.id, id),
        notExists(
          db
            .select({ one: executionKeys.key })
            .from(executionKeys)
            .where(and(keyOf, eq(executionKeys.executionId, id))),
        ),
      ),
    ),
    overQuota,
  ]);
  if (!execution) throw await whyNotRunnable(ctx, workflow);
  if (claimed.length === 0) return { execution: await firstRunOf(ctx, idempotency), replayed: true };
  if (refused.length) throw quotaExceeded(limit);
  return { execution, replayed: false };
}

/** What a run copies from its workflow: it is pinned to them whatever happens to the workflow. */
export const copiedFrom = (workflow: Workflow) => ({
  workflowId: workflow.id,
  workflowVersion: workflow.version,
  steps: workflow.steps,
  settings: workflow.settings,
  variables: workflow.variables,
});

/** A new run's own columns (the rest is copied from its workflow). */
export function newRunValues(ctx: ServiceContext, run: RunRequest, now: number, leaseToken?: string) {
  return {
    id: run.child?.id ?? `exe_${randomToken(16)}`,
    userId: ctx.user.id,
    credentialId: ctx.credential.id,
    input: run.input,
    agentId: run.agentId ?? null,
    replayOf: run.replayOf ?? null,
    parentExecutionId: run.child?.parentExecutionId ?? null,
    depth: run.child?.depth ?? 0,
    ...(run.child ? { rootExecutionId: run.child.rootExecutionId } : {}),
    // A run started inline never waits in the queue: it is running from the start.
    ...(leaseToken ? { status: "running" as const, leaseToken, leaseUntil: new Date(now + LEASE_MS), startedAt: new Date(now) } : {}),
  };
}

/** What a new run is asked to do, beyond its workflow. */
export interface RunRequest {
  input: Record<string, unknown>;
  agentId?: string | null;
  /** The run whose input this replay runs again. */
  replayOf?: string;
  /**
   * A child run of a `workflow` step: its id (derived from the step, so a resumed parent finds it),
   * its parent, and the top run of its tree, whose count of descendants it joins.
   */
  child?: { id: string; parentExecutionId: string; depth: number; rootExecutionId: string };
}

/** A workflow in hand, or the id of one of the caller's workflows (read by the insert itself). */
export type WorkflowRef = Workflow | number;

/** A paused or archived workflow does not run, from any door: 409. */
export function assertRunnable(workflow: Workflow) {
  if (workflow.status === "paused" || workflow.status === "archived") {
    throw new HubError("conflict", `The workflow is ${workflow.status}; set its status to active to run it.`);
  }
}

/**
 * `INSERT … SELECT` from the caller's workflow, pinning its version, steps, settings and
 * variables: the ownership and status checks and the copy happen in the insert, so starting a run
 * by id costs no read of the workflow first.
 */
export function insertFromWorkflow(ctx: ServiceContext, workflowId: number, values: Partial<Record<keyof Execution, unknown>>, alsoRequired?: SQL) {
  const selected = insertSelectList(executions, values, {
    workflowId: workflows.id,
    workflowVersion: workflows.version,
    steps: workflows.steps,
    settings: workflows.settings,
    variables: workflows.variables,
  });
  return ctx.db
    .insert(executions)
    .select(
      sql`select ${selected} from ${workflows} where ${and(
        eq(workflows.id, workflowId),
        eq(workflows.userId, ctx.user.id),
        notInArray(workflows.status, ["paused", "archived"]),
        alsoRequired,
      )}`,
    );
}

/**
 * The start batch of a run by workflow id (insertFromWorkflow, then removeIfOverQuota, and for a
 * child run the count of its tree). Answers the new row, or none, and whether the quota refused it.
 */
async function startFromWorkflow(
  ctx: ServiceContext,
  workflowId: number,
  values: Partial<Record<keyof Execution, unknown>>,
): Promise<[Execution | undefined, boolean]> {
  const statements: D1PreparedStatement[] = startStatements(ctx, workflowId, values);
  const root = values.rootExecutionId as string | undefined;
  if (root)
    statements.push(
      prepareOnce(ctx.db.$client, "start:descendant", () => descendantCounted(ctx.db, slot("root"), slot("id")).toSQL(), { root, id: values.id }),
    );
  const [inserted, refused] = await ctx.db.$client.batch(statements);
  const row = inserted!.results[0] as Record<string, unknown> | undefined;
  return [row && decodeRow(row), (refused!.results.length ?? 0) > 0];
}

/**
 * The two statements that start a run by workflow id: the insert, which copies the caller's
 * workflow if it may run (and, with `copyOf`, only if it is still that version of it), and the
 * quota check that takes the row back out. Their text is built once per set of values given (see
 * prepareOnce): it is the same for every run started through the API. The insert returns the row.
 */
export function startStatements(
  ctx: ServiceContext,
  workflowId: number,
  values: Partial<Record<keyof Execution, unknown>>,
  copyOf?: Pick<Workflow, "version" | "updatedAt">,
): [insert: D1PreparedStatement, overQuota: D1PreparedStatement] {
  const given = Object.keys(values).filter((key) => values[key as keyof Execution] !== undefined) as (keyof Execution)[];
  const d1 = ctx.db.$client;
  const slots = Object.fromEntries(given.map((key) => [key, slot(key)]));
  const encoded = Object.fromEntries(given.map((key) => [key, encodeFor(EXECUTION_COLUMNS[key], values[key])]));
  const insert = prepareOnce(
    d1,
    `start:${given.join(",")}${copyOf ? ":copy" : ""}`,
    () =>
      ctx.db
        .insert(executions)
        .select(
          // The values go in as named slots (copied as they are); the rest is copied from the workflow.
          sql`select ${insertSelectList(
            executions,
            {},
            {
              ...slots,
              workflowId: workflows.id,
              workflowVersion: workflows.version,
              steps: workflows.steps,
              settings: workflows.settings,
              variables: workflows.variables,
            },
          )} from ${workflows} where ${and(
            eq(workflows.id, slot("workflowId")),
            eq(workflows.userId, slot("owner")),
            notInArray(workflows.status, ["paused", "archived"]),
            // Stamps written by SQL carry fractions of a millisecond that a Date drops: same millisecond, same save.
            copyOf ? and(eq(workflows.version, slot("version")), sql`abs(${workflows.updatedAt} - ${slot("updatedAt")}) < 1`) : undefined,
            given.includes("rootExecutionId") ? treeHasRoom(slot("rootExecutionId"), slot("descendantLimit")) : undefined,
          )}`,
        )
        .returning()
        .toSQL(),
    {
      ...encoded,
      workflowId,
      owner: ctx.user.id,
      ...(copyOf ? { version: copyOf.version, updatedAt: encodeFor(workflows.updatedAt, copyOf.updatedAt) } : {}),
      ...(given.includes("rootExecutionId") ? { descendantLimit: ctx.config.quotas.runDescendants } : {}),
    },
  );
  const overQuota = prepareOnce(
    d1,
    "start:over-quota",
    () =>
      ctx.db
        .delete(executions)
        .where(and(eq(executions.id, slot("id")), sql`${unfinishedRunsOf(slot("owner"))} > ${slot("limit")}`))
        .returning({ id: executions.id })
        .toSQL(),
    { id: values.id, owner: ctx.user.id, limit: ctx.config.quotas.runningExecutionsPerUser },
  );
  return [insert, overQuota];
}

const EXECUTION_COLUMNS = getTableColumns(executions) as Record<keyof Execution, Column>;

/** A raw executions row (column names, stored forms) as drizzle would read it. */
function decodeRow(row: Record<string, unknown>): Execution {
  const decoded: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(EXECUTION_COLUMNS)) {
    const value = row[column.name];
    decoded[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return decoded as Execution;
}

/**
 * Nothing was inserted: the child run's tree has set off all the runs it may (422), the workflow
 * is not the caller's (404), or it may not run now (409).
 */
async function whyNotRunnable(ctx: ServiceContext, workflow: WorkflowRef, root?: unknown): Promise<Error> {
  if (typeof root === "string" && (await descendantsOf(ctx.db, root)) >= ctx.config.quotas.runDescendants) return descendantsExceeded(ctx, root);
  const current = await getOwnedWorkflow(ctx, typeof workflow === "number" ? workflow : workflow.id);
  assertRunnable(current);
  return new HubError("conflict", "The workflow changed while the run was starting; try again.");
}

/** The run an idempotency key started; the same key for a different request is refused. */
async function firstRunOf(ctx: ServiceContext, idempotency: IdempotencyKey): Promise<Execution> {
  const row = await ctx.db
    .select({ requestHash: executionKeys.requestHash, execution: executions })
    .from(executionKeys)
    .innerJoin(executions, eq(executions.id, executionKeys.executionId))
    .where(and(eq(executionKeys.userId, ctx.user.id), eq(executionKeys.key, idempotency.key)))
    .get();
  if (!row) throw new HubError("conflict", "A request with this Idempotency-Key is being handled; retry in a moment.");
  if (row.requestHash !== idempotency.requestHash) {
    throw new HubError("validation_failed", "This Idempotency-Key was used with a different request; use a new key for a new request.", {
      errors: [{ location: "header", field: "Idempotency-Key", message: "Already used for a different request." }],
    });
  }
  return row.execution;
}

/**
 * Run in the same batch as an execution's insert: takes the new row back out if the account is
 * now over its quota of unfinished runs (returning it then). Each start sees itself and every
 * start before it, so the quota holds under any concurrency, in the insert's round trip.
 */
export function removeIfOverQuota(ctx: ServiceContext, executionId: string) {
  const limit = ctx.config.quotas.runningExecutionsPerUser;
  return ctx.db
    .delete(executions)
    .where(and(eq(executions.id, executionId), sql`${unfinishedRunsOf(ctx.user.id)} > ${limit}`))
    .returning({ id: executions.id });
}

/** The account's unfinished runs, the quota's count: a run parked at a wait_for_event (`waiting`) is one too. */
const unfinishedRunsOf = (owner: SQL | number) =>
  sql`(select count(*) from executions where user_id = ${owner} and status in ('queued', 'running', 'waiting'))`;

export const quotaExceeded = (limit: number) =>
  new HubError("quota_exceeded", `An account can have at most ${limit} unfinished executions; wait for some to finish or cancel them.`);

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

/** Housekeeping: idempotency keys older than a day are forgotten. */
export async function forgetOldExecutionKeys(db: Db, now = Date.now()): Promise<void> {
  await db.delete(executionKeys).where(lt(executionKeys.createdAt, new Date(now - IDEMPOTENCY_KEY_TTL_MS)));
}

export async function getOwnedExecution(ctx: ServiceContext, id: string): Promise<Execution> {
  const row = await ctx.db
    .select()
    .from(executions)
    .where(and(eq(executions.id, id), eq(executions.userId, ctx.user.id)))
    .get();
  if (!row) throw notFound("Execution");
  return row;
}

/** Runs one of the caller's workflows now, acting with the caller's credential. */
export function runWorkflow(ctx: ServiceContext, workflowId: number, input: Record<string, unknown>, options: RunOptions = {}): Promise<StartedRun> {
  return startAndRun(ctx, workflowId, { input }, options);
}

export interface RunOptions {
  /** `Prefer: wait=<seconds>`: answer with the finished execution if it ends within this time. */
  waitSeconds?: number;
  /** `Idempotency-Key`: the key, and what the request asked for. */
  idempotency?: IdempotencyKey;
}

export interface StartedRun {
  execution: Execution;
  /** The run as it ended, when the caller asked to wait and it ended in time. */
  finished?: EndedRun;
  /** The idempotency key had started this run before: nothing new was started. */
  replayed?: boolean;
}

/**
 * Starts a run and drives it right away in this invocation (a delayed queue message is the
 * backstop), waiting for its end when asked to.
 */
export async function startAndRun(ctx: ServiceContext, workflow: WorkflowRef, run: RunRequest, options: RunOptions): Promise<StartedRun> {
  // A caller waiting for the end of a run of one of its workflows (no key, not a child run):
  // the start can go with the run's first write.
  if (typeof workflow === "number" && options.waitSeconds && options.waitSeconds > 0 && !options.idempotency && !run.child) {
    const started = await runWithDeferredStart(ctx, workflow, run, options.waitSeconds);
    if (started) return started;
  }
  const token = newLeaseToken();
  const { execution, replayed } = await insertExecution(ctx, workflow, run, token, options.idempotency);
  if (replayed) {
    // The first request's answer again: with a wait, the run once it has ended (whoever drives it).
    if (!options.waitSeconds) return { execution, replayed };
    const finished = isFinished(execution.status) ? { execution } : await watchUntilEnded(ctx, execution.id, options.waitSeconds);
    return { execution, finished, replayed };
  }
  if ((execution.settings as WorkflowSettings).concurrency) {
    // The workflow limits how many of its runs go at once: the queue's consumer takes turns.
    const queued = await handToQueue(ctx, execution, token);
    const finished = options.waitSeconds ? await watchUntilEnded(ctx, execution.id, options.waitSeconds) : undefined;
    return { execution: queued, finished };
  }
  if (options.waitSeconds && options.waitSeconds > 0) {
    return { execution, finished: await runAndWait(ctx, execution, token, options.waitSeconds) };
  }
  ctx.waitUntil(runNow(ctx, execution, token).catch((error) => logInlineFailure(execution.id, error)));
  return { execution };
}

/** Gives up the lease a run was born with and queues it instead. */
export async function handToQueue(ctx: ServiceContext, execution: Execution, token: string): Promise<Execution> {
  const [queued] = await ctx.db
    .update(executions)
    .set({ status: "queued", leaseToken: null, leaseUntil: null, startedAt: null })
    .where(and(eq(executions.id, execution.id), eq(executions.leaseToken, token)))
    .returning();
  await enqueueExecution(ctx.bindings.WORKFLOW_RUNS, execution.id);
  return queued ?? execution;
}

/** Executions of one of the caller's workflows, newest first; the cursor is the last row's (created_at, id). */
export async function listWorkflowExecutions(ctx: ServiceContext, workflowId: number, limit: number, cursor: string | undefined) {
  // Ownership first: another user's workflow is 404 whatever the cursor.
  const workflow = await getOwnedWorkflow(ctx, workflowId);
  const before = decodeCursor(cursor, z.object({ c: z.number(), id: z.string() }));
  const position = before
    ? or(lt(executions.createdAt, new Date(before.c)), and(eq(executions.createdAt, new Date(before.c)), lt(executions.id, before.id)))
    : undefined;
  return ctx.db
    .select()
    .from(executions)
    .where(and(eq(executions.workflowId, workflow.id), position))
    .orderBy(desc(executions.createdAt), desc(executions.id))
    .limit(limit)
    .all();
}

/** The runs this one started (`workflow` steps' children, its error workflow's run), oldest first. */
export async function childExecutions(db: Db, executionId: string) {
  const rows = await db
    .select({
      id: executions.id,
      workflowId: executions.workflowId,
      status: executions.status,
      tokensUsed: executions.tokensUsed,
      createdAt: executions.createdAt,
      finishedAt: executions.finishedAt,
    })
    .from(executions)
    .where(eq(executions.parentExecutionId, executionId))
    .orderBy(asc(executions.createdAt))
    .limit(100)
    .all();
  return rows.map((row) => ({
    id: row.id,
    workflow_id: row.workflowId,
    status: row.status,
    tokens_used: row.tokensUsed,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
  }));
}

/** With `withSteps`, the steps are read unless the caller already holds them (`known`, in order). */
export async function presentExecution(db: Db, execution: Execution, withSteps: boolean, known?: ExecutionStep[]) {
  const steps = withSteps
    ? (known ?? (await db.select().from(executionSteps).where(eq(executionSteps.executionId, execution.id)).orderBy(asc(executionSteps.position)).all()))
    : undefined;
  return {
    id: execution.id,
    workflow_id: execution.workflowId,
    workflow_version: execution.workflowVersion,
    status: execution.status,
    input_data: execution.input,
    error_message: execution.errorMessage,
    failed_step_id: execution.failedStepId,
    agent_id: execution.agentId,
    retry_of: execution.retryOf,
    replay_of: execution.replayOf,
    parent_execution_id: execution.parentExecutionId,
    tokens_used: execution.tokensUsed,
    created_at: execution.createdAt.toISOString(),
    started_at: execution.startedAt?.toISOString() ?? null,
    finished_at: execution.finishedAt?.toISOString() ?? null,
    ...(steps
      ? {
          steps: steps.map((s) => ({
            step_id: s.stepId,
            // Steps inside a for_each run once per item: `send#3` is item 3's.
            item: s.stepKey.includes("#") ? Number(s.stepKey.slice(s.stepKey.lastIndexOf("#") + 1)) : null,
            type: s.type,
            status: s.status,
            attempts: s.attempts,
            duration_ms: s.startedAt && s.finishedAt ? s.finishedAt.getTime() - s.startedAt.getTime() : null,
            tokens_used: s.tokensUsed,
            started_at: s.startedAt?.toISOString() ?? null,
            finished_at: s.finishedAt?.toISOString() ?? null,
            resume_at: s.resumeAt?.toISOString() ?? null,
            result: s.result ?? null,
            error_message: s.errorMessage,
          })),
        }
      : {}),
  };
}

/**
 * How long past its lease (or, never leased, past its last update) an unfinished execution may
 * go before the sweep queues it again. Leases are renewed every few seconds while a step runs
 * and a delayed wake-up is due when its lease ends, so this is only slack for a busy queue.
 */
const STALE_AFTER_MS = 10_000;
const SWEEP_BATCH = 500;

/**
 * The sweep (every minute on the cron, and at start-up under `npm start`): executions whose
 * runner died (lease ran out) or whose queue message was lost (a killed local process loses its
 * queue) are queued again. Duplicates are harmless: the lease admits one runner, and checkpoints
 * keep succeeded steps from running twice.
 */
export async function resumeStaleExecutions({ db, bindings }: Runtime, now = Date.now()): Promise<number> {
  const stale = await db
    .select({ id: executions.id })
    .from(executions)
    .where(
      and(
        inArray(executions.status, ["queued", "running", "waiting"]),
        or(
          lt(executions.leaseUntil, new Date(now - STALE_AFTER_MS)),
          and(isNull(executions.leaseUntil), lt(executions.updatedAt, new Date(now - STALE_AFTER_MS))),
        ),
      ),
    )
    .limit(SWEEP_BATCH)
    .all();
  // A queue takes at most 100 messages per batch.
  for (let i = 0; i < stale.length; i += 100) {
    await bindings.WORKFLOW_RUNS.sendBatch(
      stale.slice(i, i + 100).map(({ id }) => ({ body: { kind: "execution", execution_id: id } satisfies ExecutionMessage })),
    );
  }
  return stale.length;
}

/**
 * Cancels an unfinished execution (queued, running, waiting on a delay, a retry or an event). A runner
 * in the middle of a step loses its lease at once: its heartbeat aborts the step's call and
 * nothing after it runs. A finished execution answers 409.
 */
export async function cancelExecution(ctx: ServiceContext, id: string): Promise<Execution> {
  const now = new Date();
  const stop = { status: "cancelled" as const, finishedAt: now, leaseToken: null, leaseUntil: null, updatedAt: now };
  const unfinished = inArray(executions.status, ["queued", "running", "waiting"]);
  const [cancelled] = await ctx.db
    .update(executions)
    .set({ ...stop, errorMessage: "Cancelled on request." })
    .where(and(eq(executions.id, id), eq(executions.userId, ctx.user.id), unfinished))
    .returning();
  if (cancelled) {
    // Every unfinished run below it goes with it, found by the statement itself: one level may hold
    // more runs than a statement can bind (D1: 100 values), and one statement cannot stop half way.
    const below = sql`${executions.id} in (
      with recursive below(id) as (
        select id from executions where parent_execution_id = ${cancelled.id} and status in ('queued', 'running', 'waiting')
        union
        select child.id from executions child join below on child.parent_execution_id = below.id where child.status in ('queued', 'running', 'waiting')
      )
      select id from below)`;
    await ctx.db
      .update(executions)
      .set({ ...stop, errorMessage: "Cancelled with the run that started it." })
      .where(and(below, unfinished));
    // A parent waiting for this run hears that it ended (its step fails with the reason).
    if (cancelled.parentExecutionId) await wakeParent(ctx, cancelled.parentExecutionId);
    return cancelled;
  }
  const existing = await getOwnedExecution(ctx, id);
  throw new HubError("conflict", `The execution has already ${existing.status === "cancelled" ? "been cancelled" : existing.status}.`);
}
