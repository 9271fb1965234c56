import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import type { Execution, ExecutionStep } from "../db/schema";
import { randomToken } from "../lib/crypto";
import { substitute } from "../lib/template";
import type { Step } from "../workflows/steps";
import { Checkpoints, type StepState } from "./checkpoints";
import { Scope, StepEvaluationFailed } from "./scope";
import { STEP_HANDLERS } from "./steps";
import type { CheckpointOptions, StepHandler, StepRun } from "./steps/types";

/** How long one step tried on its own may take before the answer goes without it. */
export const TRIAL_MS = 30_000;

/** How a trial ended short of a success: the run it stands for would have paused, or failed. */
export class TrialPaused {
  constructor(readonly resumeAt: number) {}
}
export class TrialFailed {
  constructor(readonly message: string) {}
}

/** What a trial's context holds: the run's input, earlier steps' results by id, the workflow's variables. */
export interface TrialContext {
  input: Record<string, unknown>;
  steps: Record<string, unknown>;
  variables: Record<string, unknown>;
}

/**
 * One step run on its own, outside any run (POST /v1/workflows/test-step), by the executor's own
 * step handler (steps/). It stands in for the run: its records stay in memory (nothing is
 * written), its side effects act for the caller (the caller's connections, limits and
 * governors), a pause (a delay, a retry's wait, an event, an approval) ends the trial instead of
 * parking anything, and the steps of a condition's branch are not walked (the step is the
 * condition). A for_each's items do run their steps: that is what the step does.
 */
export class StepTrial implements StepRun {
  readonly execution: Execution;
  readonly root: Scope;
  readonly trial = true;
  /** The trial's step records, kept in memory only (never taken for a write). */
  private readonly records: Checkpoints;
  private readonly deadline = AbortSignal.timeout(TRIAL_MS);
  /** A per-user limit or a governor held a call back: the caller hears it as a 429, not as a wait. */
  private rateLimited?: HubError;

  constructor(
    readonly ctx: ServiceContext,
    given: TrialContext,
  ) {
    const now = new Date();
    // Only what the handlers read of a run: its id keys the calls' idempotency (a new one per trial).
    this.execution = {
      id: `trial_${randomToken(12)}`,
      workflowId: 0,
      workflowVersion: 0,
      userId: ctx.workspace.id,
      credentialId: ctx.credential.id,
      steps: [],
      settings: {},
      variables: given.variables,
      input: given.input,
      agentId: null,
      depth: 0,
      startedAt: now,
      createdAt: now,
    } as unknown as Execution;
    const results = Object.fromEntries(Object.entries(given.steps).map(([id, result]) => [id, { result, status: "succeeded" }]));
    const context = {
      ...given.variables,
      ...given.input,
      input: given.input,
      steps: results,
      execution: { id: this.execution.id, started_at: now.toISOString(), workflow_version: 0 },
    };
    this.root = new Scope(context, results, null);
    this.records = new Checkpoints(this.execution.id, new Map(), 0, Number.POSITIVE_INFINITY);
  }

  /** Runs `step` once in the trial's context; throws TrialPaused or TrialFailed when it did not succeed. */
  async run(step: Step): Promise<void> {
    const work = this.runStep(step, this.root);
    const timedOut = new Promise<never>((_, reject) =>
      this.deadline.addEventListener("abort", () => reject(new TrialFailed(`The step did not finish within ${TRIAL_MS / 1000} s.`)), { once: true }),
    );
    await Promise.race([work, timedOut]);
  }

  /** The record of the tried step (or of an item's step, by key), as a run would have written it. */
  record(key: string): ExecutionStep | undefined {
    return this.records.get(key);
  }

  private async runStep(step: Step, scope: Scope): Promise<void> {
    const handler = STEP_HANDLERS[step.type] as StepHandler<typeof step.type>;
    try {
      await handler(this, step, scope, this.records.get(scope.key(step)));
    } catch (error) {
      if (error instanceof StepEvaluationFailed) return this.failStep(error.step, scope, 1, error.reason);
      throw error;
    }
  }

  recorded(key: string): ExecutionStep | undefined {
    return this.records.get(key);
  }

  evaluate<T>(step: Step, work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw new StepEvaluationFailed(step, error instanceof Error ? error.message : String(error));
    }
  }

  substitute(value: unknown, context: unknown): unknown {
    return substitute(value, context, { strict: true }).value;
  }

  apply(step: Step, scope: Scope, result: unknown) {
    scope.results[step.id] = { result, status: "succeeded" };
    if (step.type === "set") Object.assign(scope.context, result as Record<string, unknown>);
  }

  async walk(steps: Step[], scope: Scope): Promise<void> {
    // The tried step is a condition: its branch is the answer, not steps to run.
    if (scope === this.root) return;
    for (const step of steps) await this.runStep(step, scope);
  }

  async checkpoint(step: Step, scope: Scope, state: StepState, options: CheckpointOptions = {}) {
    // The step's own writes (an agent step's ledger rows) are made at once: a trial writes no records, but what it spends counts.
    const [first, ...rest] = options.alongside ?? [];
    if (first) await this.ctx.db.batch([first, ...rest]);
    this.records.record(step, scope.key(step), state);
  }

  async pause(resumeAt: number): Promise<never> {
    if (this.rateLimited) throw this.rateLimited;
    throw new TrialPaused(resumeAt);
  }

  async failStep(
    step: Step,
    scope: Scope,
    attempt: number,
    error: string,
    tokensUsed?: number,
    more: Pick<StepState, "usage" | "errorCode"> = {},
  ): Promise<never> {
    await this.checkpoint(step, scope, { status: "failed", attempts: attempt, error, tokensUsed, ...more });
    throw new TrialFailed(error);
  }

  async fail(_step: Step | null, message: string): Promise<never> {
    throw new TrialFailed(message);
  }

  /** The caller's credential was checked by this very request. */
  async stopIfRevoked() {}

  async withHeartbeat<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    try {
      return await work(this.deadline);
    } catch (error) {
      if (error instanceof HubError && error.code === "rate_limited") this.rateLimited = error;
      throw error;
    }
  }

  runItems<T>(work: () => Promise<T>): Promise<T> {
    return work();
  }

  /** A `workflow` step is tried as a test run of its workflow (test-step.ts), never through here. */
  driveInline(): Promise<unknown> {
    throw new Error("A step tried on its own drives no child run.");
  }
}
