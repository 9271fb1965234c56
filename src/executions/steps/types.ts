import type { BatchItem } from "drizzle-orm/batch";
import type { ServiceContext } from "../../core/context";
import type { Execution, ExecutionStep } from "../../db/schema";
import type { Step } from "../../workflows/steps";
import type { StepState } from "../checkpoints";
import type { Scope } from "../scope";

/**
 * What a step handler may do with the run it belongs to (ExecutionRun implements it). Handlers
 * never write to the database themselves: they record state through `checkpoint`, stop the run
 * through `pause`, `failStep` or `fail`, and wrap side effects in `withHeartbeat`.
 */
export interface CheckpointOptions {
  deferred?: boolean;
  alongside?: BatchItem<"sqlite">[];
}

export interface StepRun {
  readonly ctx: ServiceContext;
  readonly execution: Execution;
  /** A step tried on its own (POST /v1/workflows/test-step): nothing waits for a person. */
  readonly trial?: boolean;
  /** The step's record as this runner knows it (read at lease time, or recorded since). */
  recorded(key: string): ExecutionStep | undefined;
  /** Evaluates templates or a condition; bad data fails the step with the reason. */
  evaluate<T>(step: Step, work: () => T): T;
  /**
   * Fills a step's placeholders from `context` as the workflow's settings say: strict (a
   * placeholder with no value and no default fails the step, naming it) unless
   * `strict_placeholders` is false. Call it inside `evaluate`.
   */
  substitute(value: unknown, context: unknown): unknown;
  /** Makes a succeeded step's result visible to the steps after it. */
  apply(step: Step, scope: Scope, result: unknown): void;
  walk(steps: Step[], scope: Scope): Promise<void>;
  /**
   * Records the step's state; `deferred` (pure steps only) writes it with the next write;
   * `alongside` are the step's own writes (an answer's ledger row) to make in the same batch.
   */
  checkpoint(step: Step, scope: Scope, state: StepState, options?: CheckpointOptions): Promise<void>;
  /** Releases the lease until `resumeAt` and stops walking; `waiting` marks a run parked for an event or a child. */
  pause(resumeAt: number, status?: "waiting", afterPark?: () => Promise<void>): Promise<never>;
  /**
   * Marks the step failed, and the run with it, and stops walking; `more` adds an llm step's usage,
   * a failure's code or a code step's lines. A step whose `on_error` lets the run go on throws
   * FailureHandled instead, which the walk that ran it catches.
   */
  failStep(
    step: Step,
    scope: Scope,
    attempt: number,
    error: string,
    tokensUsed?: number,
    more?: Pick<StepState, "usage" | "errorCode" | "logs">,
  ): Promise<never>;
  /** Fails the run before a side effect if the credential that started it was revoked. */
  stopIfRevoked(step: Step, scope: Scope): Promise<void>;
  /** Runs a side effect while renewing the lease; aborted if the lease is lost. */
  withHeartbeat<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** Runs a for_each's items: a pause or failure inside one is handed to the loop (ItemStopped). */
  runItems<T>(work: () => Promise<T>): Promise<T>;
  /** Fails the run with `message` (a for_each's collected failure). */
  fail(step: Step | null, message: string): Promise<never>;
  /** Drives a child run inline, in this invocation (the child's own lease, its own backstop). */
  driveInline(child: Execution, token: string): Promise<unknown>;
}

/** Runs one step of type T in `scope`; `done` is its record from an earlier attempt or drive. */
export type StepHandler<T extends Step["type"]> = (
  run: StepRun,
  step: Extract<Step, { type: T }>,
  scope: Scope,
  done: ExecutionStep | undefined,
) => Promise<void>;
