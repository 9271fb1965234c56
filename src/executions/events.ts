import { and, eq, gt, sql } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { type Execution, executionSteps, executions } from "../db/schema";
import { HubError, notFound } from "../core/errors";
import { resumeNow } from "./run-now";
import { findStep, innerSteps, type Step } from "../workflows/steps";
import { describeBytes, utf8Length } from "../lib/bytes";

/**
 * Delivers an event to a run parked at a `wait_for_event` step (a human approval, say): the step
 * succeeds with the payload as its result and the run carries on from there, started at once in
 * this invocation with a queue message as the backstop. The event must be the one the step
 * waits for and arrive before its timeout; a run not waiting is 409. Who may deliver it is the
 * step's `approvers`: a caller the step does not admit gets 403 and the run keeps waiting.
 */
export async function deliverEvent(ctx: ServiceContext, executionId: string, event: string, payload: unknown): Promise<void> {
  const execution = await executionForApprover(ctx, executionId);
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
  const refusal = approvalRefusal(ctx, execution, step);
  if (refusal) throw new HubError("forbidden", refusal);
  if (step.event !== event) {
    throw new HubError("conflict", `Step "${step.id}" waits for the event "${step.event}", not "${event}".`);
  }
  // The payload becomes a step result, counted in the run's stored bytes; a waiting run's count
  // cannot change (no runner holds it), so the row read above decides.
  const bytes = utf8Length(JSON.stringify(payload ?? null));
  const limit = ctx.config.quotas.runStoredBytes;
  if (execution.storedBytes + bytes > limit) {
    throw new HubError(
      "limit_exceeded",
      `The payload (${describeBytes(bytes)}) would take the run past ${describeBytes(limit)} of stored step results (MAX_RUN_STORED_BYTES); send a smaller one.`,
    );
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
    ctx.db
      .update(executions)
      .set({ status: "queued", leaseUntil: null, updatedAt: now, storedBytes: sql`${executions.storedBytes} + ${bytes}` })
      .where(stillParked)
      .returning({ id: executions.id }),
  ]);
  if (resumed.length === 0) throw new HubError("conflict", "The execution is no longer waiting for this event (it timed out, or the event was delivered).");

  resumeNow(ctx, execution.id);
}

type WaitStep = Extract<Step, { type: "wait_for_event" }>;

/**
 * The run, for its owner or for someone a wait step of it names as an approver; anyone else
 * gets 404, as for any object not theirs.
 */
async function executionForApprover(ctx: ServiceContext, id: string): Promise<Execution> {
  const row = await ctx.db.select().from(executions).where(eq(executions.id, id)).get();
  if (row && (row.userId === ctx.workspace.id || namesApprover(row.steps as Step[], ctx.actor.id))) return row;
  throw notFound("Execution");
}

function namesApprover(steps: Step[], userId: number): boolean {
  return steps.some(
    (step) => (step.type === "wait_for_event" && Array.isArray(step.approvers) && step.approvers.includes(userId)) || namesApprover(innerSteps(step), userId),
  );
}

/** Why the caller may not approve this step, or undefined when they may. */
function approvalRefusal(ctx: ServiceContext, execution: Execution, step: WaitStep): string | undefined {
  const approvers = step.approvers ?? "any";
  if (Array.isArray(approvers)) {
    // Approvers are people: whoever acts, in whichever workspace.
    return approvers.includes(ctx.actor.id) ? undefined : `Step "${step.id}" may be approved only by the users it names (approvers).`;
  }
  if (execution.userId !== ctx.workspace.id) return `Step "${step.id}" may be approved only by the run's owner.`;
  // An approval is a second look: the key that started the run cannot give it to itself.
  if (approvers === "other" && ctx.credential.id === execution.credentialId) {
    return `Step "${step.id}" needs an approval from someone other than the credential that started the run: deliver the event with another API key or sign-in.`;
  }
  return undefined;
}
