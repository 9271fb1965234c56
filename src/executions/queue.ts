import { and, eq } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import type { ExecutionMessage, WorkflowRunMessage } from "../core/messages";
import { executions, type Execution } from "../db/schema";
import { MAX_QUEUE_DELAY_SECONDS } from "./lease";

/** Sends a run's message: the queue's consumer drives it after `delaySeconds` (chained past the queue's maximum). */
export async function enqueueExecution(queue: Queue<WorkflowRunMessage>, executionId: string, delaySeconds = 0): Promise<void> {
  const delay = Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, Math.ceil(delaySeconds)));
  await queue.send({ kind: "execution", execution_id: executionId } satisfies ExecutionMessage, delay ? { delaySeconds: delay } : undefined);
}

/** Gives up the lease a run was born with and queues it instead. */
export async function handToQueue(ctx: ServiceContext, execution: Execution, token: string): Promise<Execution> {
  const [queued] = await ctx.db
    .update(executions)
    .set({ status: "queued", leaseToken: null, leaseUntil: null, startedAt: null })
    .where(and(eq(executions.id, execution.id), eq(executions.leaseToken, token)))
    .returning();
  await enqueueExecution(ctx.bindings.WORKFLOW_RUNS, execution.id);
  return queued ?? execution;
}
