import { substitute } from "../lib/template";
import { and, eq } from "drizzle-orm";
import { credentialRevocation } from "../auth/credential-status";
import type { ServiceContext } from "../core/context";
import type { Db } from "../db/client";
import { prepareOnce } from "../db/statement-cache";
import { executions, type Execution, type ExecutionStep } from "../db/schema";
import { type Step, findStep, handlerSteps } from "../workflows/steps";
import { agentOutcomeUpdate } from "./agent-outcome";
import { Checkpoints, type StepState } from "./checkpoints";
import { wakeParent } from "./child-runs";
import type { DeferredStart } from "./deferred-start";
import { type FinalState, followUpsOfEnd } from "./follow-ups";
import { HEARTBEAT_MS, LEASE_MS, isFinished } from "./lease";
import { FailureHandled, countErrorsHandled, failedOutcome, handlesFailure } from "./on-error";
import { type DriveOutcome, Pause } from "./outcome";
import { asStatement, finalStateUpdate, leaseRenewal, leaseStillHeld, type StepRow } from "./run-statements";
import { ItemStopped, Scope, StepEvaluationFailed, type StepOutcome } from "./scope";
import { PURE_STEPS, STEP_HANDLERS } from "./steps";
import type { CheckpointOptions, StepHandler, StepRun } from "./steps/types";
import { runStoredTooMuch } from "./stored-bytes";
import { type EndVerdict, verdictAtEnd } from "./verdict";

/** How a run drives a child run inline (drive.ts's runNow, handed in so that this file needs no import of it). */
export type InlineDriver = (ctx: ServiceContext, child: Execution, token: string) => Promise<unknown>;

/**
 * One drive of one run by the holder of its lease: walks the steps, hands each to its type's
 * handler (steps/), and writes every checkpoint, the pause and the end in batches guarded by the
 * lease. A step that succeeded before (its checkpoint) is replayed from its result, never run again.
 */
export class ExecutionRun implements StepRun {
  private readonly root: Scope;
  /** While a for_each runs items, a pause or failure inside one is the loop's to carry out. */
  private itemsInFlight = false;
  private readonly checkpoints: Checkpoints;
  /** Steps' own writes waiting for the next flush (CheckpointOptions.alongside). */
  private readonly alongside: D1PreparedStatement[] = [];
  private readonly db: Db;
  /** The same database, for statements bound without drizzle's builder (see prepareOnce). */
  private readonly d1: D1Database;

  constructor(
    readonly ctx: ServiceContext,
    readonly execution: Execution,
    private readonly token: string,
    recorded: Map<string, ExecutionStep>,
    private readonly inline: InlineDriver,
    /** A start not written yet (see deferred-start.ts): it goes with the run's first write. */
    private readonly start?: DeferredStart,
  ) {
    this.db = ctx.db;
    this.d1 = ctx.db.$client;
    this.checkpoints = new Checkpoints(execution.id, recorded, execution.storedBytes, ctx.config.quotas.runStoredBytes);
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

  recorded(key: string): ExecutionStep | undefined {
    return this.checkpoints.get(key);
  }

  async walk(steps: Step[], scope: Scope = this.root): Promise<void> {
    for (const step of steps) await this.runStep(step, scope);
  }

  private async runStep(step: Step, scope: Scope): Promise<void> {
    try {
      try {
        await this.runStepOnce(step, scope);
      } catch (error) {
        if (error instanceof StepEvaluationFailed) await this.failStep(error.step, scope, 1, error.reason);
        throw error;
      }
    } catch (error) {
      // The step failed and its on_error lets the run go on (on-error.ts).
      if (error instanceof FailureHandled && error.step === step) return this.goOnAfterFailure(step, scope, error.message);
      throw error;
    }
  }

  /** A handled failure: later steps read it (`steps.<id>.status`, `.error.message`); a handler's steps run now. */
  private async goOnAfterFailure(step: Step, scope: Scope, message: string): Promise<void> {
    scope.results[step.id] = failedOutcome(message);
    await this.walk(handlerSteps(step) ?? [], scope);
  }

  private async runStepOnce(step: Step, scope: Scope): Promise<void> {
    const done = this.checkpoints.get(scope.key(step));
    if (done?.status === "skipped" && step.type === "wait_for_event") {
      // Timed out earlier and set to continue: nothing arrived, on replay as the first time.
      scope.results[step.id] = { result: null, status: "skipped" };
      return;
    }
    // Failed earlier and handled: replayed as handled, never run again; its handler goes on from its own checkpoints.
    if (done?.status === "failed" && handlesFailure(step)) return this.goOnAfterFailure(step, scope, done.errorMessage ?? "The step failed.");
    if (done?.status === "succeeded") {
      // Replay: the step ran before; take its result, never its side effects again.
      this.apply(step, scope, done.result);
      if (step.type === "condition") await this.walk((done.result as { branch: string }).branch === "then" ? step.then : step.else, scope);
      return;
    }
    const pinned = this.execution.pinned;
    if (pinned && Object.hasOwn(pinned, step.id)) return this.givePinned(step, scope, pinned[step.id]);
    // Only pure steps run before the run's start is written: every other step reads or writes
    // the database, or acts outside, so the start (with the checkpoints so far) goes first.
    if (!PURE_STEPS.has(step.type) && this.start?.pending) await this.flush();
    const handler = STEP_HANDLERS[step.type] as StepHandler<typeof step.type>;
    await handler(this, step, scope, done);
  }

  /**
   * A test run's pinned step (DESIGN §6.5) does not run: it gives the result it was pinned to,
   * recorded as a success (with no attempt) that the steps after it read as if it had run. Like a
   * pure step's, its record waits for the next write: written again, it is the same.
   */
  private async givePinned(step: Step, scope: Scope, result: unknown): Promise<void> {
    await this.checkpoint(step, scope, { status: "succeeded", result, attempts: 0 }, { deferred: true });
    this.apply(step, scope, result);
    if (step.type === "condition") await this.walk((result as { branch: string }).branch === "then" ? step.then : step.else, scope);
  }

  /**
   * Evaluates a step's templates or condition. Bad data (a substitution too large, a value that
   * cannot be compared) fails the step, and so the execution, with the reason: it would fail
   * the same way on every retry.
   */
  evaluate<T>(step: Step, work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw new StepEvaluationFailed(step, error instanceof Error ? error.message : String(error));
    }
  }

  substitute(value: unknown, context: unknown): unknown {
    return substitute(value, context, { strict: this.execution.settings.strict_placeholders !== false }).value;
  }

  apply(step: Step, scope: Scope, result: unknown) {
    scope.results[step.id] = { result, status: "succeeded" };
    if (step.type === "set") Object.assign(scope.context, result as Record<string, unknown>);
  }

  /**
   * Side effects (tool calls, model calls, child runs) act with the credential that started the
   * run: a revoked API key or OAuth grant stops the run before its next one.
   */
  async stopIfRevoked(step: Step, scope: Scope) {
    const revoked = await credentialRevocation(this.db, this.execution.credentialId, (work) => this.ctx.waitUntil(work));
    if (revoked) await this.fail(step, `The run was stopped before step "${scope.key(step)}": ${revoked}`);
  }

  driveInline(child: Execution, token: string): Promise<unknown> {
    return this.inline(this.ctx, child, token);
  }

  async runItems<T>(work: () => Promise<T>): Promise<T> {
    this.itemsInFlight = true;
    try {
      return await work();
    } finally {
      this.itemsInFlight = false;
    }
  }

  /**
   * Runs a step's work while renewing the lease every few seconds. If the lease is lost (the
   * execution was cancelled, or another runner took over after a stall) the work is aborted.
   */
  async withHeartbeat<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
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
  async failStep(
    step: Step,
    scope: Scope,
    attempt: number,
    error: string,
    tokensUsed?: number,
    more: Pick<StepState, "usage" | "errorCode" | "logs"> = {},
  ): Promise<never> {
    await this.checkpoint(step, scope, { status: "failed", attempts: attempt, error, tokensUsed, ...more });
    // Written above before the run goes on: a resumed run finds the failure and does not run the step again.
    if (handlesFailure(step)) throw new FailureHandled(step, error);
    return this.fail(step, `Step "${scope.key(step)}" failed after ${attempt} attempt(s): ${error}`);
  }

  /** Ends the execution as failed with `message` (counted once for its agent) and stops walking. */
  async fail(step: Step | null, message: string): Promise<never> {
    if (this.itemsInFlight) throw new ItemStopped({ failure: { step, message } });
    throw new Pause(await this.end({ status: "failed", errorMessage: message, failedStepId: step?.id ?? null }));
  }

  /**
   * Ends the execution: the checkpoints not written yet, the agent's monitoring count and the
   * final state go in one D1 batch, all guarded by the lease, so a run is counted once and a crash
   * never leaves it finished but uncounted. A run of an agent with a goal gets its verdict in the
   * same write (so its notification and trace see it), unless a judge must be asked: that request
   * is made after the end, in the background, and its answer counts a met goal then.
   */
  async end(final: FinalState): Promise<DriveOutcome> {
    const now = new Date();
    const { id, agentId } = this.execution;
    const checkpoints = this.checkpoints.take(this.db, this.token);
    // The last results would take the run past its stored bytes: it fails instead.
    if (checkpoints.overflow && final.status === "succeeded") final = this.storedTooMuch(checkpoints.overflow);
    const stillHeld = leaseStillHeld(id, this.token);
    const tokensUsed = this.checkpoints.tokensUsed();
    const goal = await this.goalVerdict(final);
    const settled = goal && "settled" in goal ? { verdict: goal.settled.verdict, verdictReason: goal.settled.reason } : {};
    const failedStepId = final.status === "failed" ? final.failedStepId : null;
    const errorsHandled = countErrorsHandled(this.checkpoints.inOrder(), this.execution.steps as Step[], failedStepId);
    const fields = [...Object.keys({ ...final, ...settled }), "errorsHandled"].sort();
    const finalState = prepareOnce(this.d1, `final:${fields.join(",")}`, () => finalStateUpdate(this.db, fields), {
      ...final,
      ...settled,
      errorsHandled,
      storedDelta: checkpoints.storedDelta,
      tokensUsed,
      now: now.getTime(),
      executionId: id,
      token: this.token,
    });
    // With a goal, only a met goal is a success; a succeeded run that missed it (or awaits its judge) is neither.
    const outcome =
      final.status === "failed" ? { success: false, error: final.errorMessage } : { success: goal ? (settled.verdict === "goal_met" ? true : null) : true };
    const followUps = followUpsOfEnd(this.ctx, this.execution, final, stillHeld);
    // Checkpoints, the agent's count and the follow-ups go before the final state: they are
    // guarded by the lease that it releases, so a runner that lost the lease writes none of them.
    // A test run counts in no agent's monitoring (DESIGN §6.5).
    const others = [
      ...(agentId && this.execution.mode !== "test" ? [agentOutcomeUpdate(this.db, this.execution, outcome, this.token)] : []),
      ...followUps.writes.map((write) => asStatement(this.d1, write)),
    ];
    const start = this.start?.take() ?? [];
    const writes = [...checkpoints.statements, ...others, finalState];
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
      verdict: settled.verdict ?? null,
      verdictReason: settled.verdictReason ?? null,
      errorsHandled,
    };
    if (goal && "judge" in goal) this.ctx.waitUntil(goal.judge());
    const followUpsAt = checkpoints.statements.length + others.length - followUps.writes.length;
    const note = await followUps.send(results.slice(followUpsAt, followUpsAt + followUps.writes.length));
    if (note && ended.errorMessage !== null) ended.errorMessage += note;
    if (ended.parentExecutionId) await wakeParent(this.ctx, ended.parentExecutionId);
    return { done: true, ended: { execution: ended, steps: this.checkpoints.inOrder() } };
  }

  /** The run's verdict on its agent's goal (verdict.ts); none when that cannot be read, never failing the end. */
  private async goalVerdict(final: FinalState): Promise<EndVerdict | undefined> {
    try {
      return await verdictAtEnd(this.ctx, this.execution, final, this.checkpoints.inOrder());
    } catch (error) {
      console.error(JSON.stringify({ level: "error", message: "run verdict not decided", execution_id: this.execution.id, error: String(error) }));
      return undefined;
    }
  }

  /**
   * Releases the lease until `resumeAt` (the wake-up the queue will bring) and stops walking;
   * `waiting` marks a run parked for an event rather than a delay or a retry.
   */
  async pause(resumeAt: number, status?: "waiting", afterPark?: () => Promise<void>): Promise<never> {
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
  async checkpoint(step: Step, scope: Scope, state: StepState, options: CheckpointOptions = {}) {
    this.checkpoints.record(step, scope.key(step), state);
    for (const write of options.alongside ?? []) this.alongside.push(asStatement(this.d1, write));
    if (!options.deferred) await this.flush();
  }

  /**
   * Writes the checkpoints not written yet, with a lease renewal, in one batch. A run started
   * inline is still `queued` until its first write says it is `running`.
   */
  async flush(): Promise<void> {
    const start = this.start?.take() ?? [];
    const { statements: checkpointWrites, storedDelta, overflow } = this.checkpoints.take(this.db, this.token);
    // Not guarded by the lease: they record what happened (a model answer's cost) whoever runs on.
    const writes = [...checkpointWrites, ...this.alongside.splice(0)];
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
      throw new Pause((await this.hasEnded()) ? { done: true } : { done: false, resumeInSeconds: 30 });
    }
    if (overflow) {
      const { errorMessage, failedStepId } = this.storedTooMuch(overflow);
      await this.fail(failedStepId === null ? null : (findStep(this.execution.steps as Step[], failedStepId) ?? null), errorMessage);
    }
  }

  /** Whether the execution reached a final state (cancelled, say) while this runner held it. */
  private async hasEnded(): Promise<boolean> {
    const row = await this.db.select({ status: executions.status }).from(executions).where(eq(executions.id, this.execution.id)).get();
    return !row || isFinished(row.status);
  }

  /** The end of a run whose results would pass MAX_RUN_STORED_BYTES with those of the step `row` records. */
  private storedTooMuch(row: StepRow): Extract<FinalState, { status: "failed" }> {
    return { status: "failed", errorMessage: runStoredTooMuch(this.ctx.config.quotas.runStoredBytes, row.stepKey), failedStepId: row.stepId };
  }

  /**
   * Runs `writes` in one batch behind the run's deferred start, if it is in `start`, and answers
   * their results. A start that wrote nothing throws (StartRefused, StartReplayed, StartOverQuota): the writes
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
}
