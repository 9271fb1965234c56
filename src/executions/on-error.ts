import type { ExecutionStep } from "../db/schema";
import { type Step, innerSteps, onErrorOf } from "../workflows/steps";
import type { StepOutcome } from "./scope";

/**
 * Per-step error handling (DESIGN §6.5). A step whose `on_error` is "continue" or a handler is
 * checkpointed `failed` like any failed step, but the run goes on: `failStep` throws
 * `FailureHandled` instead of ending the run, and the walk that ran the step catches it, makes the
 * failure readable (`steps.<id>.status`, `.error.message`) and runs the handler's steps. A run
 * resumed later finds the `failed` record and does the same without running the step again.
 */

/** Thrown by failStep for a step whose `on_error` takes over its failure; caught where the step was walked. */
export class FailureHandled {
  constructor(
    readonly step: Step,
    readonly message: string,
  ) {}
}

/** Whether the step's failure, once its attempts are spent, lets the run go on. */
export const handlesFailure = (step: Step): boolean => onErrorOf(step) !== "fail";

/** What later steps read of a failed step whose failure was handled. */
export const failedOutcome = (message: string): StepOutcome => ({ result: null, status: "failed", error: { message } });

/** Ids of the steps (nested ones included) whose failures let the run go on. */
export function failureHandlingStepIds(steps: Step[]): Set<string> {
  const ids = new Set<string>();
  const collect = (list: Step[]) => {
    for (const step of list) {
      if (handlesFailure(step)) ids.add(step.id);
      collect(innerSteps(step));
    }
  };
  collect(steps);
  return ids;
}

/**
 * How many failures the run's `on_error` took over: its `failed` records of steps that handle
 * failures (one per for_each item), but not `failedStepId`'s (the run's own failure, when a result
 * too large to keep failed such a step). Counted from the records, so a resumed or retried run
 * counts what was handled before it too.
 */
export function countErrorsHandled(records: ExecutionStep[], steps: Step[], failedStepId: string | null): number {
  const handling = failureHandlingStepIds(steps);
  return records.filter((row) => row.status === "failed" && row.stepId !== failedStepId && handling.has(row.stepId)).length;
}
