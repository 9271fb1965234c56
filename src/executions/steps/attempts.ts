import type { ExecutionStep } from "../../db/schema";
import { HubError } from "../../core/errors";
import type { RetryPolicy, Step } from "../../workflows/steps";
import type { Scope } from "../scope";
import type { StepRun } from "./types";

const NO_RETRY: RetryPolicy = { max_attempts: 1, delay_seconds: 0, backoff: "fixed" };
/** How many interrupted attempts a step without a larger retry policy survives. */
const INTERRUPTED_ATTEMPTS = 3;

/**
 * The attempt about to start under the step's retry policy (else the workflow's): waits out a
 * retry's delay first, and fails a step that has no attempts left.
 */
export async function nextAttempt(run: StepRun, step: Step & { retry?: RetryPolicy }, scope: Scope, done: ExecutionStep | undefined) {
  if (done?.status === "retrying" && done.resumeAt && done.resumeAt.getTime() > Date.now()) await run.pause(done.resumeAt.getTime());
  const attempt = (done?.attempts ?? 0) + 1;
  const policy = step.retry ?? (run.execution.settings.retry as RetryPolicy | undefined) ?? NO_RETRY;
  // A step found `running` was interrupted (its consumer died mid-step). That attempt counts:
  // a crash is survived a few times, but a step that keeps killing its consumer fails rather
  // than being tried forever.
  const limit = done?.status === "running" ? Math.max(policy.max_attempts, INTERRUPTED_ATTEMPTS) : policy.max_attempts;
  if (attempt > limit) return run.failStep(step, scope, attempt - 1, done?.errorMessage ?? "The step was interrupted too many times.");
  return { attempt, policy };
}

/** A failed attempt: tried again after the policy's delay while attempts are left, else the step fails. */
export async function retryOrFail(
  run: StepRun,
  step: Step,
  scope: Scope,
  attempt: number,
  policy: RetryPolicy,
  error: string,
  tokensUsed?: number,
): Promise<never> {
  if (attempt < policy.max_attempts) {
    const waitMs = 1000 * policy.delay_seconds * (policy.backoff === "exponential" ? 2 ** (attempt - 1) : 1);
    await run.checkpoint(step, scope, { status: "retrying", attempts: attempt, resumeAt: new Date(Date.now() + waitMs), error, tokensUsed });
    await run.pause(Date.now() + waitMs);
  }
  return run.failStep(step, scope, attempt, error, tokensUsed);
}

/**
 * Over a per-user limit (tool calls, model calls on the deployment's key): the run parks until
 * the window resets, holding no worker and spending no attempt. Anything else returns.
 */
export async function parkIfRateLimited(run: StepRun, step: Step, scope: Scope, attempt: number, thrown: unknown, tokensUsed?: number) {
  if (!(thrown instanceof HubError && thrown.code === "rate_limited")) return;
  const resumeAt = Date.now() + (thrown.hints.retryAfterSeconds ?? 30) * 1000;
  await run.checkpoint(step, scope, { status: "retrying", attempts: attempt - 1, resumeAt: new Date(resumeAt), error: thrown.message, tokensUsed });
  await run.pause(resumeAt);
}
