import type { StepHandler } from "./types";

/**
 * `wait_for_event` parks the run until `POST /v1/executions/{id}/events` delivers the event (which
 * writes this step's success, with the payload as its result, and queues the run) or the timeout
 * passes. The execution is `waiting` and holds no lease or worker; its lease time is the timeout,
 * when a queued wake-up (or the sweep) brings it back here.
 */
export const runWaitForEvent: StepHandler<"wait_for_event"> = async (run, step, scope, done) => {
  const now = Date.now();
  const timeoutAt = done?.status === "waiting" && done.resumeAt ? done.resumeAt.getTime() : now + step.timeout_seconds * 1000;
  if (timeoutAt > now) {
    if (done?.status !== "waiting") await run.checkpoint(step, scope, { status: "waiting", resumeAt: new Date(timeoutAt), attempts: 1 });
    await run.pause(timeoutAt, "waiting");
  }
  const reason = `No "${step.event}" event arrived within ${step.timeout_seconds} s.`;
  if (step.on_timeout === "fail") return run.failStep(step, scope, 1, reason);
  await run.checkpoint(step, scope, { status: "skipped", attempts: 1, error: `${reason} The run continued.` });
  scope.results[step.id] = { result: null, status: "skipped" };
};
