import { CODE_LIMITS } from "../../lib/sandbox/limits";
import { runJavaScript } from "../../lib/sandbox/run-code";
import { MAX_RESULT_CHARS, type Scope } from "../scope";
import { nextAttempt, retryOrFail } from "./attempts";
import type { StepHandler } from "./types";

/** Names of the run's scope that are not variables (see `defaultInput`). */
const NOT_VARIABLES = new Set(["input", "steps", "execution", "agent"]);

/**
 * `code`: the step's JavaScript, run in a sandbox (lib/sandbox) with its input, and nothing else:
 * no network, nothing of the hub, a CPU budget, a memory cap. Its result is what the code
 * returned; the console lines go beside it on the step record (`logs`), a failed attempt's too,
 * next to the error with the code's line number.
 */
export const runCode: StepHandler<"code"> = async (run, step, scope, done) => {
  const { attempt, policy } = await nextAttempt(run, step, scope, done);
  const input = run.evaluate(step, () => (step.input === undefined ? defaultInput(scope, run.execution.variables) : run.substitute(step.input, scope.context)));
  const startedAt = done?.startedAt ?? new Date();
  // Written before the code runs: an attempt that takes its runner down counts (nextAttempt).
  await run.checkpoint(step, scope, { status: "running", attempts: attempt, startedAt });
  const outcome = await runJavaScript(step.code, input, { cpuMs: step.cpu_ms ?? CODE_LIMITS.defaultCpuMs });
  const logs = outcome.droppedLogs ? [...outcome.logs, `(${outcome.droppedLogs} more lines not kept)`] : outcome.logs;

  if (outcome.ok) {
    const result = outcome.value;
    if ((JSON.stringify(result) ?? "").length > MAX_RESULT_CHARS) {
      return run.failStep(step, scope, attempt, `The result is larger than the ${MAX_RESULT_CHARS / 1024} KiB a step's result may hold.`);
    }
    await run.checkpoint(step, scope, { status: "succeeded", result, logs, attempts: attempt, startedAt });
    run.apply(step, scope, result);
    return;
  }
  if (attempt < policy.max_attempts) return retryOrFail(run, step, scope, attempt, policy, outcome.error);
  // The last attempt: the record keeps the lines the code logged before it failed.
  return run.failStep(step, scope, attempt, outcome.error, undefined, { logs });
};

/**
 * What the code gets without an `input`: the run's input, the results of the steps before it
 * (`steps.<id>.result`, as placeholders see them) and the variables: the workflow's (overlaid by
 * the run's input as placeholders see them), `set` values, and a for_each's item and index. The
 * run's input is not repeated among the variables: it is `input`.
 */
function defaultInput(scope: Scope, workflowVariables: Record<string, unknown>) {
  const input = (scope.context.input ?? {}) as Record<string, unknown>;
  const variables = Object.fromEntries(
    Object.entries(scope.context).filter(
      ([name, value]) => !NOT_VARIABLES.has(name) && (Object.hasOwn(workflowVariables, name) || !Object.hasOwn(input, name) || value !== input[name]),
    ),
  );
  return { input, steps: scope.context.steps ?? {}, variables };
}
