import { type Column, and, eq, getTableColumns, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { delegatedContext, type Runtime, type ServiceContext } from "../core/context";
import type { Db } from "../db/client";
import { encodeFor, prepareOnce, slot } from "../db/statement-cache";
import { executionSteps, executions, type Execution, type ExecutionStep } from "../db/schema";
import { HubError } from "../core/errors";
import { evaluateCondition } from "../lib/conditions";
import { substitute } from "../lib/template";
import { executeTool } from "../tools/executor";
import { randomToken } from "../lib/crypto";
import { credentialRevocation } from "../auth/credential-status";
import { MAX_FOR_EACH_ITEMS, MAX_WORKFLOW_DEPTH, type RetryPolicy, type Step, type WorkflowSettings, findStep } from "./steps";
import { type LlmAnswer, LlmStepFailed, askModel } from "./llm-step";
import { childResult, childRunId, findChildRun, startChildRun, wakeParent } from "./child-runs";
import { handToQueue } from "./executions";
import { runNow } from "./run-now";
import { type FinalState, followUpsOfEnd } from "./follow-ups";
import { agentOutcomeUpdate } from "./agent-outcome";
import type { DeferredStart } from "./start-deferral";
import { resultNotKept, runStoredTooMuch, utf8Length } from "./stored-bytes";

/**
 * What the consumer does with the message after a drive. A run that this drive ended carries
 * its final row and its steps (as checkpointed), so a caller waiting for it need not read them back.
 */
export type DriveOutcome = { done: true; ended?: EndedRun } | { done: false; resumeInSeconds: number };
export interface EndedRun {
  execution: Execution;
  /** The steps as this runner checkpointed them; absent when someone else ended the run. */
  steps?: ExecutionStep[];
}

/**
 * A lease is short and renewed every HEARTBEAT_MS while a step runs, so a runner that died (a
 * killed process, an evicted isolate) is noticed within seconds: the sweep resumes executions
 * whose lease ran out.
 */
export const LEASE_MS = 20_000;
const HEARTBEAT_MS = 5_000;
/** Queues deliver at most this far in the future; longer waits are chained. */
export const MAX_QUEUE_DELAY_SECONDS = 12 * 3600;
const NO_RETRY: RetryPolicy = { max_attempts: 1, delay_seconds: 0, backoff: "fixed" };
/** How many interrupted attempts a step without a larger retry policy survives. */
const INTERRUPTED_ATTEMPTS = 3;
/** How long a run parked for its child waits before looking again, should the child's wake-up be lost. */
const CHILD_BACKSTOP_MS = 3600_000;
/** Step results are checkpointed in D1; larger ones are kept as a truncated preview. */
const MAX_RESULT_CHARS = 256 * 1024;

/** Thrown to stop walking the steps: the execution waits (delay, retry) or has ended. */
class Pause {
  constructor(readonly outcome: DriveOutcome) {}
}

export const newLeaseToken = () => randomToken(12);

/**
 * Runs an execution as far as it can go now (a queue message, the sweep). Only the holder of the
 * execution's lease runs steps; every step's outcome is checkpointed before the next side effect,
 * so a redelivered or resumed message replays succeeded steps from their checkpoints and never
 * runs them again.
 */
export async function driveExecution(runtime: Runtime, executionId: string): Promise<DriveOutcome> {
  const { db } = runtime;
  // Most messages (backstops of runs that ended inline) find the run finished: read only what
  // decides that; the lease update below returns the whole row.
  const execution = await db
    .select({
      status: executions.status,
      leaseToken: executions.leaseToken,
      leaseUntil: executions.leaseUntil,
      startedAt: executions.startedAt,
      workflowId: executions.workflowId,
      settings: executions.settings,
    })
    .from(executions)
    .where(eq(executions.id, executionId))
    .get();
  if (!execution || isFinished(execution.status)) return { done: true };
  const concurrency = (execution.settings as WorkflowSettings).concurrency;

  const token = newLeaseToken();
  const now = Date.now();
  const leased = await db
    .update(executions)
    .set({
      leaseToken: token,
      leaseUntil: new Date(now + LEASE_MS),
      status: "running",
      startedAt: execution.startedAt ?? new Date(now),
      updatedAt: new Date(now),
    })
    .where(
      and(
        eq(executions.id, executionId),
        // A waiting run's lease time is its event's timeout: it is taken back once that passes.
        inArray(executions.status, ["queued", "running", "waiting"]),
        or(isNull(executions.leaseUntil), lt(executions.leaseUntil, new Date(now))),
        concurrency ? slotFree(execution.workflowId, executionId, concurrency, now) : undefined,
      ),
    )
    .returning();
  if (leased.length === 0) {
    const free = !execution.leaseUntil || execution.leaseUntil.getTime() < now;
    // Leasable but for the workflow's concurrency: its turn comes when a slot frees up.
    if (concurrency && free) return { done: false, resumeInSeconds: CONCURRENCY_RECHECK_SECONDS };
    // Someone holds the lease. While it is running the run, this message comes back just after
    // the lease would run out, so a runner that dies (an isolate cut off mid-run) is followed
    // within one lease. A paused run (no holder) has its own wake-up message queued: this one
    // is a duplicate and is dropped; should that be lost, the sweep resumes the run.
    const heldUntil = execution.leaseToken && execution.leaseUntil ? execution.leaseUntil.getTime() : 0;
    return heldUntil > now ? { done: false, resumeInSeconds: Math.ceil((heldUntil - now) / 1000) + 1 } : { done: true };
  }
  return walkLeased(runtime, leased[0]!, token, await loadCheckpoints(db, executionId));
}

/** How soon a run held back by its workflow's `settings.concurrency` looks for a free slot again. */
const CONCURRENCY_RECHECK_SECONDS = 2;

/** Fewer than `limit` of the workflow's other runs hold a live lease (are running a step now). */
function slotFree(workflowId: number, executionId: string, limit: number, now: number) {
  return sql`(select count(*) from executions where workflow_id = ${workflowId} and id != ${executionId} and lease_token is not null and lease_until > ${now}) < ${limit}`;
}

/**
 * Runs a new execution whose lease this invocation took when it inserted the row (see
 * `startAndRun`): there is nothing to read back and no checkpoint yet.
 */
export function driveNewExecution(runtime: Runtime, execution: Execution, token: string, start?: DeferredStart): Promise<DriveOutcome> {
  return walkLeased(runtime, execution, token, new Map(), start);
}

async function walkLeased(
  runtime: Runtime,
  execution: Execution,
  token: string,
  checkpoints: Map<string, ExecutionStep>,
  start?: DeferredStart,
): Promise<DriveOutcome> {
  // Steps act for the run's owner, with the credential that started it.
  const ctx = delegatedContext(runtime, execution.userId, execution.credentialId);
  const run = new ExecutionRun(ctx, execution, token, checkpoints, start);
  try {
    await run.walk(execution.steps as Step[]);
    return await run.end({ status: "succeeded" });
  } catch (error) {
    if (error instanceof Pause) return error.outcome;
    throw error;
  }
}

/** Whether the execution reached a final state (cancelled, say) while this runner held it. */
async function hasEnded(db: Db, executionId: string): Promise<boolean> {
  const row = await db.select({ status: executions.status }).from(executions).where(eq(executions.id, executionId)).get();
  return !row || isFinished(row.status);
}

const isFinished = (status: Execution["status"]) => status === "succeeded" || status === "failed" || status === "cancelled";

async function loadCheckpoints(db: Db, executionId: string): Promise<Map<string, ExecutionStep>> {
  const rows = await db.select().from(executionSteps).where(eq(executionSteps.executionId, executionId)).all();
  return new Map(rows.map((row) => [row.stepKey, row]));
}

type StepOutcome = { result: unknown; status: string };

/**
 * Where steps run: the run itself, or one item of a for_each, which sees the run's variables and
 * results plus `item` (or its `as` name) and `index`, keeps its own `set` values and results, and
 * checkpoints its steps under keys with the item (`send#3`).
 */
class Scope {
  constructor(
    readonly context: Record<string, unknown>,
    readonly results: Record<string, StepOutcome>,
    readonly index: number | null,
  ) {}

  key(step: Step): string {
    return this.index === null ? step.id : `${step.id}#${this.index}`;
  }

  forItem(as: string, item: unknown, index: number): Scope {
    const results = { ...this.results };
    return new Scope({ ...this.context, [as]: item, index, steps: results }, results, index);
  }
}

/** A for_each item that must pause or fail, handed to the loop, which does it once all items in progress have stopped. */
class ItemStopped {
  readonly resumeAt?: number;
  readonly failure?: { step: Step | null; message: string };
  constructor(stop: { resumeAt: number } | { failure: { step: Step | null; message: string } }) {
    Object.assign(this, stop);
  }
}

class ExecutionRun {
  private root: Scope;
  /** While a for_each runs items, a pause or failure inside one is the loop's to carry out. */
  private itemsInFlight = false;
  /** Checkpoints of pure steps not written yet (see `checkpoint`). */
  private unwritten = new Map<string, StepRow>();
  /**
   * Bytes of step results written for the run (MAX_RUN_STORED_BYTES): its row's count when this
   * runner took the lease, plus what this runner has handed to a write since.
   */
  private storedBytes: number;

  private db: Db;
  /** The same database, for statements bound without drizzle's builder (see prepareOnce). */
  private d1: D1Database;

  constructor(
    private ctx: ServiceContext,
    private execution: Execution,
    private token: string,
    private checkpoints: Map<string, ExecutionStep>,
    /** A start not written yet (see start-deferral.ts): it goes with the run's first write. */
    private start?: DeferredStart,
  ) {
    this.db = ctx.db;
    this.d1 = ctx.db.$client;
    this.storedBytes = execution.storedBytes;
    const input = execution.input ?? {};
    const results: Record<string, StepOutcome> = {};
    const context = {
      ...execution.variables,
      ...input,
      input,
      steps: results,
      execution: { id: execution.id, started_at: (execution.startedAt ?? new Date()).toISOString(), workflow_version: execution.workflowVersion },
      ...(execution.agentId ? { agent: { id: execution.agentId } } : {}),
    };
    this.root = new Scope(context, results, null);
  }

  async walk(steps: Step[], scope: Scope = this.root): Promise<void> {
    for (const step of steps) await this.runStep(step, scope);
  }

  private async runStep(step: Step, scope: Scope): Promise<void> {
    try {
      await this.runStepOnce(step, scope);
    } catch (error) {
      if (error instanceof StepEvaluationFailed) return this.failStep(error.step, scope, 1, error.reason);
      throw error;
    }
  }

  private async runStepOnce(step: Step, scope: Scope): Promise<void> {
    const done = this.checkpoints.get(scope.key(step));
    if (done?.status === "skipped" && step.type === "wait_for_event") {
      // Timed out earlier and set to continue: nothing arrived, on replay as the first time.
      scope.results[step.id] = { result: null, status: "skipped" };
      return;
    }
    if (done?.status === "succeeded") {
      // Replay: the step ran before; take its result, never its side effects again.
      this.apply(step, scope, done.result);
      if (step.type === "condition") await this.walk((done.result as { branch: string }).branch === "then" ? step.then : step.else, scope);
      return;
    }
    // Only pure steps run before the run's start is written: every other step reads or writes
    // the database, or acts outside, so the start (with the checkpoints so far) goes first.
    if (step.type !== "set" && step.type !== "condition" && this.start?.pending) await this.flush();
    switch (step.type) {
      case "set": {
        const values = this.evaluate(step, () => substitute(step.values, scope.context).value as Record<string, unknown>);
        if (JSON.stringify(values).length > MAX_RESULT_CHARS)
          return this.failStep(step, scope, 1, `The values are larger than ${MAX_RESULT_CHARS / 1024} KiB.`);
        await this.checkpoint(step, scope, { status: "succeeded", result: values, attempts: 1 }, { deferred: true });
        this.apply(step, scope, values);
        return;
      }
      case "condition": {
        const outcome = this.evaluate(step, () => evaluateCondition(step.condition, scope.context));
        const branch = outcome.result ? "then" : "else";
        // The compared values may be large; only the branch matters on replay.
        const result = { ...(bounded(outcome) as object), branch };
        await this.checkpoint(step, scope, { status: "succeeded", result, attempts: 1 }, { deferred: true });
        this.apply(step, scope, result);
        await this.walk(outcome.result ? step.then : step.else, scope);
        return;
      }
      case "delay":
        return this.delay(step, scope, done);
      case "tool":
        return this.tool(step, scope, done);
      case "wait_for_event":
        return this.waitForEvent(step, scope, done);
      case "llm":
        return this.llm(step, scope, done);
      case "for_each":
        return this.forEach(step, scope);
      case "workflow":
        return this.childWorkflow(step, scope, done);
    }
  }

  /**
   * Evaluates a step's templates or condition. Bad data (a substitution too large, a value that
   * cannot be compared) fails the step, and so the execution, with the reason: it would fail
   * the same way on every retry.
   */
  private evaluate<T>(step: Step, work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw new StepEvaluationFailed(step, error instanceof Error ? error.message : String(error));
    }
  }

  private apply(step: Step, scope: Scope, result: unknown) {
    scope.results[step.id] = { result, status: "succeeded" };
    if (step.type === "set") Object.assign(scope.context, result as Record<string, unknown>);
  }

  /** A delay holds no worker: the step records when it may end and the message comes back then. */
  private async delay(step: Extract<Step, { type: "delay" }>, scope: Scope, done: ExecutionStep | undefined) {
    const now = Date.now();
    const resumeAt = done?.status === "waiting" && done.resumeAt ? done.resumeAt.getTime() : now + step.seconds * 1000;
    if (resumeAt <= now) {
      await this.checkpoint(step, scope, { status: "succeeded", result: { waited_seconds: step.seconds }, attempts: 1 });
      this.apply(step, scope, { waited_seconds: step.seconds });
      return;
    }
    if (done?.status !== "waiting") await this.checkpoint(step, scope, { status: "waiting", resumeAt: new Date(resumeAt), attempts: 1 });
    await this.pause(resumeAt);
  }

  /**
   * Parks the run until `POST /v1/executions/{id}/events` delivers the event (which writes this
   * step's success, with the payload as its result, and queues the run) or the timeout passes.
   * The execution is `waiting` and holds no lease or worker; its lease time is the timeout, when
   * a queued wake-up (or the sweep) brings it back here.
   */
  private async waitForEvent(step: Extract<Step, { type: "wait_for_event" }>, scope: Scope, done: ExecutionStep | undefined) {
    const now = Date.now();
    const timeoutAt = done?.status === "waiting" && done.resumeAt ? done.resumeAt.getTime() : now + step.timeout_seconds * 1000;
    if (timeoutAt > now) {
      if (done?.status !== "waiting") await this.checkpoint(step, scope, { status: "waiting", resumeAt: new Date(timeoutAt), attempts: 1 });
      await this.pause(timeoutAt, "waiting");
    }
    const reason = `No "${step.event}" event arrived within ${step.timeout_seconds} s.`;
    if (step.on_timeout === "fail") return this.failStep(step, scope, 1, reason);
    await this.checkpoint(step, scope, { status: "skipped", attempts: 1, error: `${reason} The run continued.` });
    scope.results[step.id] = { result: null, status: "skipped" };
  }

  /**
   * The attempt about to start under the step's retry policy (else the workflow's): waits out a
   * retry's delay first, and fails a step that has no attempts left.
   */
  private async nextAttempt(step: Step & { retry?: RetryPolicy }, scope: Scope, done: ExecutionStep | undefined) {
    if (done?.status === "retrying" && done.resumeAt && done.resumeAt.getTime() > Date.now()) await this.pause(done.resumeAt.getTime());
    const attempt = (done?.attempts ?? 0) + 1;
    const policy = step.retry ?? (this.execution.settings.retry as RetryPolicy | undefined) ?? NO_RETRY;
    // A step found `running` was interrupted (its consumer died mid-step). That attempt counts:
    // a crash is survived a few times, but a step that keeps killing its consumer fails rather
    // than being tried forever.
    const limit = done?.status === "running" ? Math.max(policy.max_attempts, INTERRUPTED_ATTEMPTS) : policy.max_attempts;
    if (attempt > limit) return this.failStep(step, scope, attempt - 1, done?.errorMessage ?? "The step was interrupted too many times.");
    return { attempt, policy };
  }

  /** A failed attempt: tried again after the policy's delay while attempts are left, else the step fails. */
  private async retryOrFail(step: Step, scope: Scope, attempt: number, policy: RetryPolicy, error: string, tokensUsed?: number): Promise<never> {
    if (attempt < policy.max_attempts) {
      const waitMs = 1000 * policy.delay_seconds * (policy.backoff === "exponential" ? 2 ** (attempt - 1) : 1);
      await this.checkpoint(step, scope, { status: "retrying", attempts: attempt, resumeAt: new Date(Date.now() + waitMs), error, tokensUsed });
      await this.pause(Date.now() + waitMs);
    }
    return this.failStep(step, scope, attempt, error, tokensUsed);
  }

  private async tool(step: Extract<Step, { type: "tool" }>, scope: Scope, done: ExecutionStep | undefined) {
    const now = Date.now();
    const { attempt, policy } = await this.nextAttempt(step, scope, done);
    await this.stopIfRevoked(step, scope);
    const args = this.evaluate(step, () => substitute(step.arguments, scope.context).value as Record<string, unknown>);
    await this.checkpoint(step, scope, { status: "running", attempts: attempt, startedAt: done?.startedAt ?? new Date(now) });
    let result: Awaited<ReturnType<typeof executeTool>> | undefined;
    let error: string;
    try {
      result = await this.withHeartbeat((signal) =>
        executeTool(this.ctx, step.tool, args, {
          source: `workflow:${this.execution.workflowId}`,
          signal,
          // One key per execution, step and item: a re-run after a crash repeats it.
          idempotencyKey: `${this.execution.id}:${step.id}:${scope.index ?? 0}`,
        }),
      );
      error = result.error_message ?? "The tool failed.";
    } catch (thrown) {
      if (thrown instanceof Pause) throw thrown;
      if (thrown instanceof HubError && thrown.code === "rate_limited") {
        // Over the tool-call limit: wait for the window without spending an attempt.
        const retryAfter = thrown.hints.retryAfterSeconds ?? 30;
        await this.checkpoint(step, scope, { status: "retrying", attempts: attempt - 1, resumeAt: new Date(now + retryAfter * 1000), error: thrown.message });
        await this.pause(now + retryAfter * 1000);
      }
      // Refusals (unknown tool, bad arguments) and our own faults alike are a failed attempt.
      error = thrown instanceof HubError ? thrown.message : `The step failed unexpectedly: ${thrown instanceof Error ? thrown.message : String(thrown)}`;
    }
    if (result?.success) {
      // Outside the try: failing to record a success must not count as a failed attempt (that
      // would run the side effect again as a retry); the drive fails and resumes from here.
      const stored = bounded(result.result);
      await this.checkpoint(step, scope, { status: "succeeded", result: stored, attempts: attempt });
      this.apply(step, scope, stored);
      return;
    }
    return this.retryOrFail(step, scope, attempt, policy, error);
  }

  /**
   * Side effects (tool calls, model calls, child runs) act with the credential that started the
   * run: a revoked API key or OAuth grant stops the run before its next one.
   */
  private async stopIfRevoked(step: Step, scope: Scope) {
    const revoked = await credentialRevocation(this.db, this.execution.credentialId);
    if (revoked) await this.fail(step, `The run was stopped before step "${scope.key(step)}": ${revoked}`);
  }

  /** A model call. Its answer and tokens are checkpointed: a resumed run never asks again. */
  private async llm(step: Extract<Step, { type: "llm" }>, scope: Scope, done: ExecutionStep | undefined) {
    const { attempt, policy } = await this.nextAttempt(step, scope, done);
    await this.stopIfRevoked(step, scope);
    const prompt = this.evaluate(step, () => asText(substitute(step.prompt, scope.context).value));
    const system = step.system === undefined ? undefined : this.evaluate(step, () => asText(substitute(step.system, scope.context).value));
    await this.checkpoint(step, scope, { status: "running", attempts: attempt, startedAt: done?.startedAt ?? new Date() });
    // Tokens of earlier attempts stay counted.
    const spent = done?.tokensUsed ?? 0;
    let answer: LlmAnswer | undefined;
    let failure: LlmStepFailed | undefined;
    try {
      answer = await this.withHeartbeat((signal) => askModel(this.ctx, step, prompt, system, signal));
    } catch (thrown) {
      if (thrown instanceof Pause) throw thrown;
      if (thrown instanceof HubError && thrown.code === "rate_limited") {
        // Over the model-call limit on the deployment's key: park until the window resets
        // (no worker held, no attempt spent); a loop stops taking items meanwhile.
        const resumeAt = Date.now() + (thrown.hints.retryAfterSeconds ?? 30) * 1000;
        await this.checkpoint(step, scope, {
          status: "retrying",
          attempts: attempt - 1,
          resumeAt: new Date(resumeAt),
          error: thrown.message,
          tokensUsed: spent,
        });
        await this.pause(resumeAt);
      }
      failure =
        thrown instanceof LlmStepFailed
          ? thrown
          : new LlmStepFailed(`The step failed unexpectedly: ${thrown instanceof Error ? thrown.message : String(thrown)}`, false);
    }
    if (answer) {
      const stored = bounded(answer.result);
      await this.checkpoint(step, scope, { status: "succeeded", result: stored, attempts: attempt, tokensUsed: spent + answer.tokensUsed });
      this.apply(step, scope, stored);
      return;
    }
    const tokensUsed = spent + (failure?.tokensUsed ?? 0);
    if (failure?.permanent) return this.failStep(step, scope, attempt, failure.message, tokensUsed);
    return this.retryOrFail(step, scope, attempt, policy, failure?.message ?? "The model call failed.", tokensUsed);
  }

  /**
   * Runs the inner steps once per item, at most `concurrency` items at a time. Each item's steps
   * are checkpointed under their own keys (`send#3`), so a resumed run replays finished items and
   * never repeats their side effects. The result is, per item, its steps' results by id.
   */
  private async forEach(step: Extract<Step, { type: "for_each" }>, scope: Scope) {
    const items = this.evaluate(step, () => substitute(step.items, scope.context).value);
    if (!Array.isArray(items)) return this.failStep(step, scope, 1, `"items" must be an array; it is ${items === null ? "null" : typeof items}.`);
    if (items.length > MAX_FOR_EACH_ITEMS) return this.failStep(step, scope, 1, `"items" has ${items.length} items; at most ${MAX_FOR_EACH_ITEMS}.`);
    await this.checkpoint(
      step,
      scope,
      { status: "running", attempts: 1, startedAt: this.checkpoints.get(scope.key(step))?.startedAt ?? new Date() },
      { deferred: true },
    );
    const results: unknown[] = new Array(items.length).fill(null);
    let next = 0;
    const stops: unknown[] = [];
    // Workers take the next item until none is left. An item that must pause (a retry's delay)
    // or fail does not release the lease itself (`ItemStopped`): the others would lose it in the
    // middle of their calls. New items stop, the items in progress finish and checkpoint their
    // current step, and only then does the run pause or fail, once.
    this.itemsInFlight = true;
    const worker = async () => {
      while (stops.length === 0 && next < items.length) {
        const index = next++;
        const itemScope = scope.forItem(step.as, items[index], index);
        try {
          await this.walk(step.steps, itemScope);
          const own = Object.entries(itemScope.results).filter(([id]) => !(id in scope.results));
          results[index] = Object.fromEntries(own.map(([id, outcome]) => [id, outcome.result]));
        } catch (error) {
          stops.push(error);
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(step.concurrency, items.length) }, worker));
    } finally {
      this.itemsInFlight = false;
    }
    if (stops.length) {
      const failure = stops.find((stop) => stop instanceof ItemStopped && stop.failure);
      if (failure instanceof ItemStopped && failure.failure) return this.fail(failure.failure.step, failure.failure.message);
      // Anything else (the lease lost, a fault) goes up as it came.
      const other = stops.find((stop) => !(stop instanceof ItemStopped));
      if (other !== undefined) throw other;
      await this.pause(Math.min(...stops.map((stop) => (stop as ItemStopped).resumeAt ?? Date.now())));
    }
    const stored = bounded(results);
    await this.checkpoint(step, scope, { status: "succeeded", result: stored, attempts: 1 });
    this.apply(step, scope, stored);
  }

  /**
   * Runs another of the user's workflows as a child run and takes its result. The child runs
   * here and now (this run's lease renewed meanwhile); a child that parks (a wait, a delay) parks
   * this run too, until the child's end wakes it. The child's id comes from this step, so a
   * resumed run finds the child it started rather than starting another.
   */
  private async childWorkflow(step: Extract<Step, { type: "workflow" }>, scope: Scope, done: ExecutionStep | undefined) {
    const childId = await childRunId(this.execution.id, scope.key(step));
    let child = await findChildRun(this.ctx, childId);
    if (!child) {
      if (this.execution.depth >= MAX_WORKFLOW_DEPTH) return this.failStep(step, scope, 1, `Workflow steps nest ${MAX_WORKFLOW_DEPTH} deep at most.`);
      await this.stopIfRevoked(step, scope);
      const input = this.evaluate(step, () => substitute(step.input, scope.context).value as Record<string, unknown>);
      await this.checkpoint(step, scope, { status: "running", attempts: 1, result: { execution_id: childId }, startedAt: done?.startedAt ?? new Date() });
      const token = newLeaseToken();
      try {
        child = await startChildRun(this.ctx, this.execution, childId, step.workflow_id, input, token);
      } catch (error) {
        if (error instanceof HubError) return this.failStep(step, scope, 1, `The workflow ${step.workflow_id} could not start: ${error.message}`);
        throw error;
      }
      const started = child;
      if ((started.settings as WorkflowSettings).concurrency) {
        // Its workflow limits how many of its runs go at once: it takes its turn in the queue.
        child = await handToQueue(this.ctx, started, token);
      } else {
        await this.withHeartbeat(() => runNow(this.ctx, started, token));
        child = (await findChildRun(this.ctx, childId)) ?? child;
      }
    }
    if (child.status === "succeeded") {
      const result = bounded(await childResult(this.ctx, child));
      await this.checkpoint(step, scope, { status: "succeeded", result, attempts: 1, tokensUsed: child.tokensUsed });
      this.apply(step, scope, result);
      return;
    }
    if (child.status === "failed" || child.status === "cancelled") {
      const reason = child.errorMessage ?? `It was ${child.status}.`;
      return this.failStep(step, scope, 1, `The child run ${child.id} ${child.status}: ${reason}`, child.tokensUsed);
    }
    // The child goes on without us: park until its end wakes this run (the backstop only guards a lost wake-up).
    const childStillRunning = child.id;
    await this.pause(Date.now() + CHILD_BACKSTOP_MS, "waiting", async () => {
      // It may have ended between the look above and the park: then nobody else would wake us.
      const now = await findChildRun(this.ctx, childStillRunning);
      if (now && isFinished(now.status)) await wakeParent(this.ctx, this.execution.id);
    });
  }

  /**
   * Runs a step's work while renewing the lease every few seconds. If the lease is lost (the
   * execution was cancelled, or another runner took over after a stall) the work is aborted.
   */
  private async withHeartbeat<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const lost = new AbortController();
    let renewedAt = Date.now();
    const timer = setInterval(() => {
      this.renewLease()
        .then((held) => {
          if (held) renewedAt = Date.now();
          else lost.abort(new Error("The execution was cancelled or taken over."));
        })
        .catch(() => {
          // A failed renewal is retried on the next beat; once the lease may have run out, another
          // runner may hold it, so the work stops rather than run twice at once.
          if (Date.now() - renewedAt > LEASE_MS - HEARTBEAT_MS) lost.abort(new Error("The lease could not be renewed."));
        });
    }, HEARTBEAT_MS);
    try {
      return await work(lost.signal);
    } finally {
      clearInterval(timer);
    }
  }

  private async renewLease(): Promise<boolean> {
    const renewed = await this.db
      .update(executions)
      .set({ leaseUntil: new Date(Date.now() + LEASE_MS), updatedAt: new Date() })
      .where(and(eq(executions.id, this.execution.id), eq(executions.status, "running"), eq(executions.leaseToken, this.token)))
      .returning({ id: executions.id });
    return renewed.length > 0;
  }

  /** Marks the step and the whole execution failed (once), and stops walking. */
  private async failStep(step: Step, scope: Scope, attempt: number, error: string, tokensUsed?: number): Promise<never> {
    await this.checkpoint(step, scope, { status: "failed", attempts: attempt, error, tokensUsed });
    return this.fail(step, `Step "${scope.key(step)}" failed after ${attempt} attempt(s): ${error}`);
  }

  /** Ends the execution as failed with `message` (counted once for its agent) and stops walking. */
  private async fail(step: Step | null, message: string): Promise<never> {
    if (this.itemsInFlight) throw new ItemStopped({ failure: { step, message } });
    throw new Pause(await this.end({ status: "failed", errorMessage: message, failedStepId: step?.id ?? null }));
  }

  /**
   * Ends the execution: the checkpoints not written yet, the agent's monitoring count and the
   * final state go in one D1 batch, all guarded by the lease, so a run is counted once and a crash
   * never leaves it finished but uncounted.
   */
  async end(final: FinalState): Promise<DriveOutcome> {
    const now = new Date();
    const { id, agentId } = this.execution;
    const checkpoints = this.takeUnwritten();
    // The last results would take the run past its stored bytes: it fails instead.
    if (checkpoints.overflow && final.status === "succeeded") final = this.storedTooMuch(checkpoints.overflow);
    const stillHeld = sql`exists (select 1 from executions where id = ${id} and lease_token = ${this.token} and status in ('queued', 'running'))`;
    const tokensUsed = [...this.checkpoints.values()].reduce((sum, step) => sum + (step.tokensUsed ?? 0), 0);
    const fields = Object.keys(final).sort();
    const finalState = prepareOnce(this.d1, `final:${fields.join(",")}`, () => finalStateUpdate(this.db, fields), {
      ...final,
      storedDelta: checkpoints.storedDelta,
      tokensUsed,
      now: now.getTime(),
      executionId: id,
      token: this.token,
    });
    const outcome = final.status === "succeeded" ? { success: true } : { success: false, error: final.errorMessage };
    const followUps = followUpsOfEnd(this.ctx, this.execution, final, stillHeld);
    // Checkpoints, the agent's count and the follow-ups go before the final state: they are
    // guarded by the lease that it releases, so a runner that lost the lease writes none of them.
    const others = [...(agentId ? [agentOutcomeUpdate(this.db, this.execution, outcome, stillHeld)] : []), ...followUps.writes];
    const start = this.start?.take() ?? [];
    const writes = [...checkpoints.statements, ...others.map((write) => asStatement(this.d1, write)), finalState];
    const results = await this.batchAfterStart(start, writes);
    const row = results.at(-1)!.results[0] as { started_at: number | null; updated_at: number } | undefined;
    const written = row && { startedAt: row.started_at === null ? null : new Date(row.started_at), updatedAt: new Date(row.updated_at) };
    if (!written) return { done: true }; // cancelled, or taken over: whoever holds it now ends it
    const ended: Execution = {
      ...this.execution,
      status: final.status,
      errorMessage: final.status === "failed" ? final.errorMessage : this.execution.errorMessage,
      failedStepId: final.status === "failed" ? final.failedStepId : this.execution.failedStepId,
      leaseToken: null,
      leaseUntil: null,
      tokensUsed,
      finishedAt: now,
      startedAt: written.startedAt,
      updatedAt: written.updatedAt,
    };
    const followUpsAt = checkpoints.statements.length + others.length - followUps.writes.length;
    const note = await followUps.send(results.slice(followUpsAt, followUpsAt + followUps.writes.length));
    if (note && ended.errorMessage !== null) ended.errorMessage += note;
    if (ended.parentExecutionId) await wakeParent(this.ctx, ended.parentExecutionId);
    return { done: true, ended: { execution: ended, steps: [...this.checkpoints.values()].sort((a, b) => a.position - b.position) } };
  }

  /**
   * Releases the lease until `resumeAt` (the wake-up the queue will bring) and stops walking;
   * `waiting` marks a run parked for an event rather than a delay or a retry.
   */
  private async pause(resumeAt: number, status?: "waiting", afterPark?: () => Promise<void>): Promise<never> {
    if (this.itemsInFlight) throw new ItemStopped({ resumeAt });
    await this.flush();
    await this.db
      .update(executions)
      .set({ leaseToken: null, leaseUntil: new Date(resumeAt), updatedAt: new Date(), ...(status ? { status } : {}) })
      .where(and(eq(executions.id, this.execution.id), eq(executions.leaseToken, this.token)));
    await afterPark?.();
    throw new Pause({ done: false, resumeInSeconds: Math.max(0, Math.ceil((resumeAt - Date.now()) / 1000)) });
  }

  /**
   * Records a step's state. A pure step (`set`, `condition`) may be `deferred`: its row is kept in
   * memory and written together with the next checkpoint that is not (a side effect about to
   * start, a wait, a failure) or when the run ends or pauses, in one D1 batch. A crash before that
   * write only means the pure steps are evaluated again, with the same result.
   */
  private async checkpoint(
    step: Step,
    scope: Scope,
    state: {
      status: ExecutionStep["status"];
      attempts: number;
      result?: unknown;
      error?: string;
      resumeAt?: Date;
      startedAt?: Date;
      tokensUsed?: number;
    },
    options: { deferred?: boolean } = {},
  ) {
    const now = new Date();
    const finished = state.status === "succeeded" || state.status === "failed" || state.status === "skipped";
    const key = scope.key(step);
    const existing = this.checkpoints.get(key);
    const row: StepRow = {
      executionId: this.execution.id,
      stepKey: key,
      stepId: step.id,
      type: step.type,
      status: state.status,
      attempts: state.attempts,
      result: state.result ?? null,
      errorMessage: state.error ?? null,
      resumeAt: state.resumeAt ?? null,
      position: existing?.position ?? this.checkpoints.size,
      startedAt: state.startedAt ?? existing?.startedAt ?? now,
      finishedAt: finished ? now : null,
      tokensUsed: state.tokensUsed ?? existing?.tokensUsed ?? 0,
    };
    this.checkpoints.set(key, { ...row } as ExecutionStep);
    this.unwritten.set(key, row);
    if (!options.deferred) await this.flush();
  }

  /**
   * Writes the checkpoints not written yet, with a lease renewal, in one batch. A run started
   * inline is still `queued` until its first write says it is `running`.
   */
  async flush(): Promise<void> {
    const start = this.start?.take() ?? [];
    const { statements: writes, storedDelta, overflow } = this.takeUnwritten();
    if (writes.length === 0 && start.length === 0) return;
    const now = Date.now();
    // Guarded by the lease: a consumer that lost it (it ran too long) cannot overwrite progress.
    const renewal = prepareOnce(this.d1, "lease-renewal", () => leaseRenewal(this.db), {
      executionId: this.execution.id,
      token: this.token,
      leaseUntil: now + LEASE_MS,
      now,
      storedDelta,
    });
    const [{ results: renewed }] = (await this.batchAfterStart(start, [renewal, ...writes])) as [D1Result];
    if (renewed.length === 0) {
      // The lease is gone: the execution was cancelled, or another runner holds it now.
      throw new Pause((await hasEnded(this.db, this.execution.id)) ? { done: true } : { done: false, resumeInSeconds: 30 });
    }
    if (overflow) {
      const { errorMessage, failedStepId } = this.storedTooMuch(overflow);
      await this.fail(failedStepId === null ? null : (findStep(this.execution.steps as Step[], failedStepId) ?? null), errorMessage);
    }
  }

  /** The end of a run whose results would pass MAX_RUN_STORED_BYTES with those of the step `row` records. */
  private storedTooMuch(row: StepRow): Extract<FinalState, { status: "failed" }> {
    return { status: "failed", errorMessage: runStoredTooMuch(this.ctx.config.quotas.runStoredBytes, row.stepKey), failedStepId: row.stepId };
  }

  /**
   * Runs `writes` in one batch behind the run's deferred start, if it is in `start`, and answers
   * their results. A start that wrote nothing throws (StartRefused, StartOverQuota): the writes
   * behind it are guarded by the lease of a row that does not exist, so they wrote nothing either.
   */
  private async batchAfterStart(start: D1PreparedStatement[], writes: D1PreparedStatement[]): Promise<D1Result[]> {
    if (start.length === 0) return this.d1.batch(writes);
    let results: D1Result[];
    try {
      results = await this.d1.batch([...start, ...writes]);
    } catch (error) {
      this.start!.failed(error);
      throw error;
    }
    this.start!.check(results.slice(0, start.length));
    return results.slice(start.length);
  }

  /**
   * The upserts of the checkpoints not written yet, each guarded by the lease; they count as
   * written from here on. Rows go several to a statement (building and sending one statement per
   * step was most of a pure run's cost), chunked to stay under D1's 100 bound parameters, and
   * each statement's text is built once per number of rows (see prepareOnce).
   *
   * Their results' bytes (`storedDelta`) go into the run's `stored_bytes` in the same batch. A
   * result that would take the run past MAX_RUN_STORED_BYTES is not kept: its step is recorded
   * failed, saying why, and `overflow` is the first such row; the caller then fails the run.
   */
  private takeUnwritten(): { statements: D1PreparedStatement[]; storedDelta: number; overflow?: StepRow } {
    const rows = [...this.unwritten.values()];
    this.unwritten.clear();
    const limit = this.ctx.config.quotas.runStoredBytes;
    let storedDelta = 0;
    let overflow: StepRow | undefined;
    const results = rows.map((row, i) => {
      const text = encodeFor(executionSteps.result, row.result) as string | null;
      const bytes = text === null ? 0 : utf8Length(text);
      if (this.storedBytes + storedDelta + bytes <= limit) {
        storedDelta += bytes;
        return text;
      }
      const failed: StepRow = { ...row, status: "failed", result: null, errorMessage: resultNotKept(bytes, limit), finishedAt: row.finishedAt ?? new Date() };
      this.checkpoints.set(row.stepKey, { ...failed } as ExecutionStep);
      rows[i] = failed;
      overflow ??= failed;
      return null;
    });
    this.storedBytes += storedDelta;
    const statements: D1PreparedStatement[] = [];
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
      const values: Record<string, unknown> = { executionId: this.execution.id, token: this.token };
      chunk.forEach((row, r) => {
        for (const [key, column] of STEP_COLUMNS) values[`${r}.${key}`] = key === "result" ? results[i + r] : encodeFor(column, row[key]);
      });
      statements.push(prepareOnce(this.d1, `checkpoints:${chunk.length}`, () => checkpointUpsert(this.db, chunk.length), values));
    }
    return { statements, storedDelta, overflow };
  }
}

/** A statement drizzle built, bound as it would bind it in a batch. */
function asStatement(d1: D1Database, write: BatchItem<"sqlite">): D1PreparedStatement {
  const { sql: text, params } = (write as unknown as { toSQL(): { sql: string; params: unknown[] } }).toSQL();
  return d1.prepare(text).bind(...params);
}

const STEP_COLUMNS = Object.entries(getTableColumns(executionSteps)) as [keyof StepRow, Column][];

/**
 * The upsert of `rows` checkpoints, with placeholders `<row>.<column>`, guarded by the run's lease:
 * rows are inserted or updated only while the run's row holds it (`INSERT … SELECT … WHERE`), so a
 * runner that lost its lease, or whose deferred start was refused, writes none.
 */
function checkpointUpsert(db: Db, rows: number) {
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
        },
        setWhere: leaseHeld,
      })
      .toSQL()
  );
}

/** The lease renewal that goes with a flush of checkpoints: it returns the row only while the lease is held. */
function leaseRenewal(db: Db) {
  return db
    .update(executions)
    .set({ status: "running", leaseUntil: slot("leaseUntil"), updatedAt: slot("now"), storedBytes: sql`${executions.storedBytes} + ${slot("storedDelta")}` })
    .where(and(eq(executions.id, slot("executionId")), inArray(executions.status, ["queued", "running"]), eq(executions.leaseToken, slot("token"))))
    .returning({ id: executions.id })
    .toSQL();
}

/** The final state of a run (`fields` are those its FinalState carries), while the lease is held. */
function finalStateUpdate(db: Db, fields: string[]) {
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

/** A row's columns plus the lease guard's two parameters stay within D1's limit of 100 bound parameters. */
const ROWS_PER_STATEMENT = Math.floor((100 - 2) / Object.keys(getTableColumns(executionSteps)).length);

type StepRow = typeof executionSteps.$inferInsert;

/** A result small enough for its checkpoint row; a larger one is kept as a truncated preview. */
function bounded(result: unknown): unknown {
  const text = JSON.stringify(result ?? null);
  return text.length <= MAX_RESULT_CHARS ? result : { truncated: true, preview: text.slice(0, MAX_RESULT_CHARS) };
}

/** A step's templates or condition could not be evaluated with the data at hand. */
class StepEvaluationFailed extends Error {
  constructor(
    readonly step: Step,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** A substituted prompt as text: strings as they are, anything else as JSON. */
function asText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}
