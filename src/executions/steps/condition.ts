import { evaluateCondition } from "../../lib/conditions";
import { bounded } from "../scope";
import type { StepHandler } from "./types";

/** `condition`: walks `then` or `else`. Pure: written with the next write. */
export const runCondition: StepHandler<"condition"> = async (run, step, scope) => {
  const outcome = run.evaluate(step, () => evaluateCondition(step.condition, scope.context));
  const branch = outcome.result ? "then" : "else";
  // The compared values may be large; only the branch matters on replay.
  const result = { ...(bounded(outcome) as object), branch };
  await run.checkpoint(step, scope, { status: "succeeded", result, attempts: 1 }, { deferred: true });
  run.apply(step, scope, result);
  await run.walk(outcome.result ? step.then : step.else, scope);
};
