import type { StepHandler } from "./types";

/** `delay` holds no worker: the step records when it may end and the message comes back then. */
export const runDelay: StepHandler<"delay"> = async (run, step, scope, done) => {
  const now = Date.now();
  const resumeAt = done?.status === "waiting" && done.resumeAt ? done.resumeAt.getTime() : now + step.seconds * 1000;
  if (resumeAt <= now) {
    await run.checkpoint(step, scope, { status: "succeeded", result: { waited_seconds: step.seconds }, attempts: 1 });
    run.apply(step, scope, { waited_seconds: step.seconds });
    return;
  }
  if (done?.status !== "waiting") await run.checkpoint(step, scope, { status: "waiting", resumeAt: new Date(resumeAt), attempts: 1 });
  await run.pause(resumeAt);
};
