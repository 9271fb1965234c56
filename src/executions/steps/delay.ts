import { MAX_DELAY_SECONDS } from "../../workflows/steps";
import type { StepHandler } from "./types";

/** `delay` holds no worker: the step records when it may end and the message comes back then. */
export const runDelay: StepHandler<"delay"> = async (run, step, scope, done) => {
  const now = Date.now();
  // Worked out again on a resume: the placeholder reads the same recorded values, so it is the same wait.
  const seconds = delaySeconds(run.evaluate(step, () => run.substitute(step.seconds, scope.context)));
  if (Number.isNaN(seconds)) {
    return run.failStep(step, scope, 1, `The delay's seconds must be a number from 0 to ${MAX_DELAY_SECONDS}; ${String(step.seconds)} is not.`);
  }
  const resumeAt = done?.status === "waiting" && done.resumeAt ? done.resumeAt.getTime() : now + seconds * 1000;
  if (resumeAt <= now) {
    await run.checkpoint(step, scope, { status: "succeeded", result: { waited_seconds: seconds }, attempts: 1 });
    run.apply(step, scope, { waited_seconds: seconds });
    return;
  }
  if (done?.status !== "waiting") await run.checkpoint(step, scope, { status: "waiting", resumeAt: new Date(resumeAt), attempts: 1 });
  await run.pause(resumeAt);
};

/** A placeholder's value as seconds to wait (a numeric string counts), or NaN when it is not one in range. */
function delaySeconds(value: unknown): number {
  const seconds = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
  return Number.isFinite(seconds) && seconds >= 0 && seconds <= MAX_DELAY_SECONDS ? seconds : Number.NaN;
}
