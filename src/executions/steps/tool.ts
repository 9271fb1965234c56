import { HubError } from "../../core/errors";
import { executeTool } from "../../tools/executor";
import { Pause } from "../outcome";
import { bounded } from "../scope";
import { nextAttempt, parkIfRateLimited, retriesStatus, retryOrFail } from "./attempts";
import type { StepHandler } from "./types";

/** `tool`: one call of a catalog tool, with the step's retry policy and an idempotency key per step and item. */
export const runTool: StepHandler<"tool"> = async (run, step, scope, done) => {
  const { attempt, policy } = await nextAttempt(run, step, scope, done);
  await run.stopIfRevoked(step, scope);
  const args = run.evaluate(step, () => run.substitute(step.arguments, scope.context) as Record<string, unknown>);
  // The step's first attempt: also where its wait on rate limits is counted from.
  const startedAt = done?.startedAt ?? new Date();
  await run.checkpoint(step, scope, { status: "running", attempts: attempt, startedAt });
  let result: Awaited<ReturnType<typeof executeTool>> | undefined;
  let error: string;
  try {
    result = await run.withHeartbeat((signal) =>
      executeTool(run.ctx, step.tool, args, {
        source: `workflow:${run.execution.workflowId}`,
        signal,
        // One key per execution, step and item: a re-run after a crash repeats it.
        idempotencyKey: `${run.execution.id}:${step.id}:${scope.index ?? 0}`,
        rethrowRateLimited: true,
      }),
    );
    error = result.error_message ?? "The tool failed.";
  } catch (thrown) {
    if (thrown instanceof Pause) throw thrown;
    await parkIfRateLimited(run, step, scope, attempt, thrown, undefined, startedAt);
    // Arguments that do not fit the tool's schema would not fit on any later attempt either:
    // the step fails at once, naming them, instead of waiting through its retries.
    if (thrown instanceof HubError && thrown.code === "validation_failed") return run.failStep(step, scope, attempt, refusedArguments(step.tool, thrown));
    // Other refusals (an unknown tool, a platform not connected yet) and our own faults are a failed attempt.
    error = thrown instanceof HubError ? thrown.message : `The step failed unexpectedly: ${thrown instanceof Error ? thrown.message : String(thrown)}`;
  }
  if (result?.success) {
    // Outside the try: failing to record a success must not count as a failed attempt (that
    // would run the side effect again as a retry); the drive fails and resumes from here.
    const stored = bounded(result.result);
    await run.checkpoint(step, scope, { status: "succeeded", result: stored, attempts: attempt });
    run.apply(step, scope, stored);
    return;
  }
  // A platform's permanent answer (a duplicate, a missing object, a bad field) would be the same
  // on every attempt: the step fails at once, unless its policy retries that status (`retry.on`).
  if (result && !result.retryable && !retriesStatus(policy, result.error_status)) return run.failStep(step, scope, attempt, error);
  return retryOrFail(run, step, scope, attempt, policy, error, undefined, { retryAfterSeconds: result?.retry_after_seconds });
};

/** "hubspot_create_contact refused its arguments: email: Invalid email", every field named (bounded). */
function refusedArguments(tool: string, refusal: HubError): string {
  const fields = (refusal.errors ?? []).slice(0, 10).map((e) => `${e.field.replace(/^arguments\.?/, "") || "(the arguments)"}: ${e.message}`);
  return fields.length ? `${tool} refused its arguments: ${fields.join("; ")}`.slice(0, 2000) : refusal.message;
}
