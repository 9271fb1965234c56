import { MAX_RESULT_CHARS } from "../scope";
import type { StepHandler } from "./types";

/** `set`: each value, substituted, becomes a variable for the steps after it. Pure: written with the next write. */
export const runSet: StepHandler<"set"> = async (run, step, scope) => {
  const values = run.evaluate(step, () => run.substitute(step.values, scope.context) as Record<string, unknown>);
  if (JSON.stringify(values).length > MAX_RESULT_CHARS) return run.failStep(step, scope, 1, `The values are larger than ${MAX_RESULT_CHARS / 1024} KiB.`);
  await run.checkpoint(step, scope, { status: "succeeded", result: values, attempts: 1 }, { deferred: true });
  run.apply(step, scope, values);
};
