import { and, eq } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import type { ExecutionMessage } from "../core/messages";
import { executions } from "../db/schema";
import { loggableError } from "../lib/safe-log";
import type { ApprovalView } from "./present";

/** What a conversation's Durable Object answers to when one of its approvals is decided. */
interface ApprovalWaiter {
  approvalDecided(approval: ApprovalView): Promise<void>;
}

/**
 * Tells whatever waits on the approval that it was decided: the conversation whose turn asked
 * (its object goes on with the turn once every approval of the round is decided), or the run
 * whose `agent` step asked (queued again at once; the step looks at its approvals and parks again
 * while one is pending). Addressed through the bindings, not the conversations or executions
 * folders, which themselves ask for approvals. A failure is logged, not thrown: the decision is
 * stored, and the waiter looks again when it wakes (the conversation's alarm or next start, the
 * run's own resume time, the sweep).
 */
export async function wakeWaiter(ctx: Pick<ServiceContext, "bindings" | "db" | "workspace">, approval: ApprovalView): Promise<void> {
  try {
    if (approval.conversation_id !== undefined) {
      const namespace = ctx.bindings.CONVERSATIONS;
      const stub = namespace.get(namespace.idFromName(`conversation:${approval.conversation_id}`)) as unknown as ApprovalWaiter;
      await stub.approvalDecided(approval);
    }
    if (approval.execution_id !== undefined) {
      // Only a run still parked (waiting, no runner holds it) is queued again; a running one will look itself.
      const [queued] = await ctx.db
        .update(executions)
        .set({ status: "queued", leaseUntil: null, updatedAt: new Date() })
        .where(and(eq(executions.id, approval.execution_id), eq(executions.userId, ctx.workspace.id), eq(executions.status, "waiting")))
        .returning({ id: executions.id });
      if (queued) await ctx.bindings.WORKFLOW_RUNS.send({ kind: "execution", execution_id: queued.id } satisfies ExecutionMessage);
    }
  } catch (error) {
    console.error(JSON.stringify({ level: "error", message: "approval waiter not reached", approval_id: approval.id, error: loggableError(error) }));
  }
}
