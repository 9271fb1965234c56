import { type Column, type SQL, and, eq, getTableColumns, inArray, notInArray, sql } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { insertSelectList } from "../db/insert-select";
import { encodeFor, prepareOnce, slot } from "../db/statement-cache";
import { executions, workflows, type Execution, type Workflow } from "../db/schema";
import { randomToken } from "../lib/crypto";
import { getOwnedWorkflow } from "../workflows/service";
import { descendantCounted, descendantsExceeded, descendantsOf, treeHasRoom } from "./descendants";
import { LEASE_MS } from "./lease";
import { type IdempotencyKey, firstRunOf, keyedStartStatements } from "./start-keys";

/**
 * Every run starts here (`insertExecution`), whatever the door: the rules that every start keeps
 * (a workflow that may run, the quota of unfinished runs, a tree's descendants, idempotency keys
 * through start-keys.ts) live in this file. Running what was started is start-and-run.ts's.
 */

/**
 * Statements written in the start's own transaction (one round trip instead of several), after the
 * run's insert, given the new run's id: each must check for itself that the run is there (a
 * replayed key or a full quota takes the row back out), and one that fails starts nothing (a
 * webhook's signature spent twice).
 */
export interface StartAlongside {
  after?: (executionId: string) => D1PreparedStatement[];
}

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
  also: StartAlongside = {},
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
  const after = also.after?.(id) ?? [];
  // Statements built once per shape (startStatements): the workflow, even one read already, is
  // copied in SQL as it is at the insert, and only while it may run.
  const d1 = db.$client;
  const workflowId = typeof workflow === "number" ? workflow : workflow.id;
  if (!idempotency) {
    const [execution, refused] = await startFromWorkflow(ctx, workflowId, values, after);
    if (!execution) throw await whyNotRunnable(ctx, workflow, values.rootExecutionId);
    if (refused) throw quotaExceeded(limit);
    return { execution, replayed: false };
  }
  // With a key, in the same transaction: forget the key if it is past its time, claim it, and
  // take the new row back out if the key already belonged to another run (a replay).
  const results = await d1.batch([...keyedStartStatements(ctx, startStatements(ctx, workflowId, values), idempotency, id, now), ...after]);
  const [, inserted, claimed, , refused] = results;
  const row = inserted!.results[0] as Record<string, unknown> | undefined;
  if (!row) throw await whyNotRunnable(ctx, workflow);
  if (claimed!.results.length === 0) return { execution: await firstRunOf(ctx, idempotency), replayed: true };
  if (refused!.results.length) throw quotaExceeded(limit);
  return { execution: decodeRow(row), replayed: false };
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
    userId: ctx.workspace.id,
    credentialId: ctx.credential.id,
    input: run.input,
    agentId: run.agentId ?? null,
    replayOf: run.replayOf ?? null,
    parentExecutionId: run.child?.parentExecutionId ?? null,
    depth: run.child?.depth ?? 0,
    ...(run.child ? { rootExecutionId: run.child.rootExecutionId } : {}),
    trigger: run.trigger ?? (run.child ? "child" : run.replayOf ? "replay" : "manual"),
    // Only a test run says so (the column's default is a production run's).
    ...(run.mode === "test" ? { mode: "test" as const, pinned: run.pinned ?? null } : {}),
    // A run held back by flow control (a debounce window, a rate limit's next window) is queued
    // with its not-before time as its lease's end: no runner may take it, nor the sweep queue it, earlier.
    ...(run.notBefore && !leaseToken ? { leaseUntil: run.notBefore } : {}),
    // A run started inline never waits in the queue: it is running from the start.
    ...(leaseToken ? { status: "running" as const, leaseToken, leaseUntil: new Date(now + LEASE_MS), startedAt: new Date(now) } : {}),
  };
}

/** The row a start will insert, as a runner needs it before it is written (a deferred start). */
export function executionFrom(workflow: Workflow, values: ReturnType<typeof newRunValues> & { createdAt: Date; updatedAt: Date }): Execution {
  return {
    errorMessage: null,
    failedStepId: null,
    leaseToken: null,
    leaseUntil: null,
    startedAt: null,
    finishedAt: null,
    retryOf: null,
    tokensUsed: 0,
    storedBytes: 0,
    rootExecutionId: null,
    descendants: 0,
    verdict: null,
    verdictReason: null,
    errorsHandled: 0,
    mode: "production",
    pinned: null,
    concurrencyKey: null,
    status: "queued",
    ...values,
    ...copiedFrom(workflow),
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
  /** What started it, when not the API or a run (an agent's schedule, webhook or poll). */
  trigger?: Execution["trigger"];
  /** A test run (POST /v1/workflows/{id}/test), and its pinned step results by step id. */
  mode?: "test";
  pinned?: Record<string, unknown>;
  /** Not to be run before this time (flow control); the run is queued, not started inline. */
  notBefore?: Date;
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
        eq(workflows.userId, ctx.workspace.id),
        notInArray(workflows.status, ["paused", "archived"]),
        alsoRequired,
      )}`,
    );
}

/**
 * The start batch of a run by workflow id (the insert, then the quota check that takes it back
 * out, and for a child run the count of its tree), with `after` (StartAlongside's) behind them.
 * Answers the new row, or none, and whether the quota refused it.
 */
async function startFromWorkflow(
  ctx: ServiceContext,
  workflowId: number,
  values: Partial<Record<keyof Execution, unknown>>,
  after: D1PreparedStatement[],
): Promise<[Execution | undefined, boolean]> {
  const statements: D1PreparedStatement[] = startStatements(ctx, workflowId, values);
  const root = values.rootExecutionId as string | undefined;
  if (root)
    statements.push(
      prepareOnce(ctx.db.$client, "start:descendant", () => descendantCounted(ctx.db, slot("root"), slot("id")).toSQL(), { root, id: values.id }),
    );
  const [inserted, refused] = await ctx.db.$client.batch([...statements, ...after]);
  const row = inserted!.results[0] as Record<string, unknown> | undefined;
  return [row && decodeRow(row), (refused!.results.length ?? 0) > 0];
}

/**
 * One more condition on a start's insert, from the door that starts it (a webhook's agent still
 * as the caller read it): built once under `name` (its text must not vary), with its named slots'
 * `values` given per start. It may refer to the workflow's row (`workflows`).
 */
export interface StartGuard {
  name: string;
  condition: () => SQL;
  values: Record<string, unknown>;
}

/**
 * The two statements that start a run by workflow id: the insert, which copies the caller's
 * workflow if it may run (and, with `copyOf`, only if it is still that version of it), and the
 * quota check that takes the row back out. Their text is built once per set of values given (see
 * prepareOnce): it is the same for every run started through the API. The insert returns the row,
 * or with `idOnly` just its id: a deferred start, which holds the row already, only asks whether
 * there is one, and a whole row (steps, input) is JSON to encode and decode for nothing.
 */
export function startStatements(
  ctx: ServiceContext,
  workflowId: number,
  values: Partial<Record<keyof Execution, unknown>>,
  { copyOf, guard, idOnly = false }: { copyOf?: Pick<Workflow, "version" | "updatedAt">; guard?: StartGuard; idOnly?: boolean } = {},
): [insert: D1PreparedStatement, overQuota: D1PreparedStatement] {
  const given = Object.keys(values).filter((key) => values[key as keyof Execution] !== undefined) as (keyof Execution)[];
  const d1 = ctx.db.$client;
  const slots = Object.fromEntries(given.map((key) => [key, slot(key)]));
  const encoded = Object.fromEntries(given.map((key) => [key, encodeFor(EXECUTION_COLUMNS[key], values[key])]));
  const insert = prepareOnce(
    d1,
    `start:${given.join(",")}${copyOf ? ":copy" : ""}${guard ? `:${guard.name}` : ""}${idOnly ? ":id" : ""}`,
    () => {
      const copying = ctx.db.insert(executions).select(
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
          // Slots of their own: the run's own updated_at is a value given too.
          copyOf ? and(eq(workflows.version, slot("copyVersion")), sql`abs(${workflows.updatedAt} - ${slot("copyUpdatedAt")}) < 1`) : undefined,
          given.includes("rootExecutionId") ? treeHasRoom(slot("rootExecutionId"), slot("descendantLimit")) : undefined,
          guard?.condition(),
        )}`,
      );
      return (idOnly ? copying.returning({ id: executions.id }) : copying.returning()).toSQL();
    },
    {
      ...encoded,
      workflowId,
      owner: ctx.workspace.id,
      ...(copyOf ? { copyVersion: copyOf.version, copyUpdatedAt: encodeFor(workflows.updatedAt, copyOf.updatedAt) } : {}),
      ...(given.includes("rootExecutionId") ? { descendantLimit: ctx.config.quotas.runDescendants } : {}),
      ...guard?.values,
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
    { id: values.id, owner: ctx.workspace.id, limit: ctx.config.quotas.runningExecutionsPerUser },
  );
  return [insert, overQuota];
}

const EXECUTION_COLUMNS = getTableColumns(executions) as Record<keyof Execution, Column>;

/** A raw executions row (column names, stored forms) as drizzle would read it. */
export function decodeRow(row: Record<string, unknown>): Execution {
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

/**
 * Run in the same batch as an execution's insert: takes the new row back out if the account is
 * now over its quota of unfinished runs (returning it then). Each start sees itself and every
 * start before it, so the quota holds under any concurrency, in the insert's round trip.
 */
export function removeIfOverQuota(ctx: ServiceContext, executionId: string) {
  const limit = ctx.config.quotas.runningExecutionsPerUser;
  return ctx.db
    .delete(executions)
    .where(and(eq(executions.id, executionId), sql`${unfinishedRunsOf(ctx.workspace.id)} > ${limit}`))
    .returning({ id: executions.id });
}

/** The account's unfinished runs, the quota's count: a run parked at a wait_for_event (`waiting`) is one too. */
const unfinishedRunsOf = (owner: SQL | number) =>
  sql`(select count(*) from executions where user_id = ${owner} and status in ('queued', 'running', 'waiting'))`;

/** The account's unfinished runs now (to say why a guarded start found no room). */
export const countUnfinishedRuns = (ctx: ServiceContext, owner: number) =>
  ctx.db.$count(executions, and(eq(executions.userId, owner), inArray(executions.status, ["queued", "running", "waiting"])));

/**
 * Whether the account has room for one more unfinished run, for inserts that are guarded rather
 * than taken back out (an on_failure run, written in the batch that ends the run that sets it
 * off: that run has not ended yet there, so it still counts, as it would for any other start).
 */
export const hasRoomForRun = (ctx: ServiceContext, owner: number) => sql`${unfinishedRunsOf(owner)} < ${ctx.config.quotas.runningExecutionsPerUser}`;

export const quotaExceeded = (limit: number) =>
  new HubError("quota_exceeded", `An account can have at most ${limit} unfinished executions; wait for some to finish or cancel them.`);
