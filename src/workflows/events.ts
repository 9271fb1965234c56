import { and, eq, gt, sql } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { executionSteps, executions } from "../db/schema";
import { HubError } from "../core/errors";
import { getOwnedExecution } from "./executions";
import { resumeNow } from "./run-now";
import { findStep, type Step } from "./steps";

/**
 * Delivers an event to a run parked at a `wait_for_event` step (a human approval, say): the step
 * succeeds with the payload as its result and the run carries on from there, started at once in
 * this invocation with a queue message as the backstop. The event must be the one the step
 * waits for and arrive before its timeout; a run not waiting is 409.
 */
export async function deliverEvent(ctx: ServiceContext, executionId: string, event: string, payload: unknown): Promise<void> {
  const execution = await getOwnedExecution(ctx, executionId);
  if (execution.status !== "waiting") {
    throw new HubError("conflict", `The execution is ${execution.status}, not waiting for an event.`);
  }
  const parked = await ctx.db
    .select({ stepKey: executionSteps.stepKey, stepId: executionSteps.stepId })
    .from(executionSteps)
    .where(and(eq(executionSteps.executionId, execution.id), eq(executionSteps.status, "waiting"), eq(executionSteps.type, "wait_for_event")))
    .get();
  const step = parked && findStep(execution.steps as Step[], parked.stepId);
  if (!parked || step?.type !== "wait_for_event") throw new HubError("conflict", "The execution is not waiting for an event.");
  if (step.event !== event) {
    throw new HubError("conflict", `Step "${step.id}" waits for the event "${step.event}", not "${event}".`);
  }

  const now = new Date();
  // Both writes hold only while the run is still parked and its timeout has not passed: in one
  // transaction, so an event racing the timeout (or a second delivery) changes nothing.
  const stillParked = and(eq(executions.id, execution.id), eq(executions.status, "waiting"), gt(executions.leaseUntil, now));
  const [, resumed] = await ctx.db.batch([
    ctx.db
      .update(executionSteps)
      .set({ status: "succeeded", result: payload ?? null, finishedAt: now, resumeAt: null })
      .where(
        and(
          eq(executionSteps.executionId, execution.id),
          eq(executionSteps.stepKey, parked.stepKey),
          eq(executionSteps.status, "waiting"),
          sql`exists (select 1 from ${executions} where ${stillParked})`,
        ),
      ),
    ctx.db.update(executions).set({ status: "queued", leaseUntil: null, updatedAt: now }).where(stillParked).returning({ id: executions.id }),
  ]);
  if (resumed.length === 0) throw new HubError("conflict", "The execution is no longer waiting for this event (it timed out, or the event was delivered).");

  resumeNow(ctx, execution.id);
}
