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

/** What a failed attempt's answer said about trying again. */
export interface RetryHints {
  /** The platform asked to wait this long (Retry-After): honoured when longer than the policy's delay. */
  retryAfterSeconds?: number | null;
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
  hints: RetryHints = {},
): Promise<never> {
  if (attempt < policy.max_attempts) {
    const waitMs = retryDelayMs(policy, attempt, `${run.execution.id}:${scope.key(step)}`, hints.retryAfterSeconds);
    await run.checkpoint(step, scope, { status: "retrying", attempts: attempt, resumeAt: new Date(Date.now() + waitMs), error, tokensUsed });
    await run.pause(Date.now() + waitMs);
  }
  return run.failStep(step, scope, attempt, error, tokensUsed);
}

/** Whether a permanent failure with this HTTP status is retried all the same: the policy's `on` lists it. */
export function retriesStatus(policy: RetryPolicy, status: number | null): boolean {
  return status !== null && (policy.on?.includes(status) ?? false);
}

/** A platform's Retry-After never parks a step longer than a policy's own delay may (delay_seconds ≤ 3600). */
const MAX_RETRY_AFTER_SECONDS = 3600;
/** Retries wait ±20 % of the policy's delay, so runs that failed together do not come back together. */
const JITTER = 0.2;

/**
 * The wait before attempt `attempt + 1`: the policy's delay (fixed or doubling), jittered, or
 * the platform's Retry-After when that is longer. The jitter comes from `seed` (the run and the
 * step) and the attempt, not from chance: different runs spread out, and a given one is predictable.
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, seed: string, retryAfterSeconds?: number | null): number {
  const base = 1000 * policy.delay_seconds * (policy.backoff === "exponential" ? 2 ** (attempt - 1) : 1);
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * unitHash(`${seed}#${attempt}`)));
  const asked = 1000 * Math.min(Math.max(retryAfterSeconds ?? 0, 0), MAX_RETRY_AFTER_SECONDS);
  return Math.max(jittered, asked);
}

/** A number in [0, 1) from a string (FNV-1a, 32 bits): enough to spread retries, not a secret. */
function unitHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0) / 2 ** 32;
}

/** How long a step may keep waiting on rate limits, from its first attempt, before it fails. */
export const MAX_RATE_LIMITED_WAIT_MS = 10 * 60 * 1000;

/**
 * Over a per-user limit (tool calls, model calls on the deployment's key) or held back by a
 * connection's rate governor: the run parks until the window resets or the hold ends, holding
 * no worker and spending no attempt. Waiting is bounded: past MAX_RATE_LIMITED_WAIT_MS since
 * `since` (the step's first attempt) the step fails with the limit's message. Anything else returns.
 */
export async function parkIfRateLimited(run: StepRun, step: Step, scope: Scope, attempt: number, thrown: unknown, tokensUsed?: number, since?: Date) {
  if (!(thrown instanceof HubError && thrown.code === "rate_limited")) return;
  const resumeAt = Date.now() + (thrown.hints.retryAfterSeconds ?? 30) * 1000;
  if (since && resumeAt - since.getTime() > MAX_RATE_LIMITED_WAIT_MS) {
    await run.failStep(step, scope, Math.max(attempt - 1, 1), `${thrown.message} The step waited on rate limits for 10 minutes and gives up.`, tokensUsed);
  }
  await run.checkpoint(step, scope, { status: "retrying", attempts: attempt - 1, resumeAt: new Date(resumeAt), error: thrown.message, tokensUsed });
  await run.pause(resumeAt);
}
