import type { SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { ServiceContext } from "../core/context";
import type { Execution } from "../db/schema";
import { randomToken } from "../lib/crypto";
import { loggableError } from "../lib/safe-log";
import { insertFromWorkflow } from "./executions";
import { enqueueNotification, notificationInsert } from "./notifications";
import { enqueueExecution } from "./queue-consumer";
import { MAX_WORKFLOW_DEPTH, NOTIFY_EVENTS, type WorkflowSettings } from "./steps";

export type FinalState = { status: "succeeded" } | { status: "failed"; errorMessage: string; failedStepId: string | null };

/**
 * What a run's end sets off, per its workflow's settings: the notification of `settings.notify`
 * and, when it failed, a run of the `settings.on_failure` workflow with `{execution, error}`.
 * Their rows are written in the batch that ends the run (guarded by the run's lease, like its
 * other writes), so an end is never recorded without them; `send` then queues them, and the
 * sweep finds any whose message was lost.
 */
export function followUpsOfEnd(ctx: ServiceContext, execution: Execution, final: FinalState, stillHeld: SQL) {
  const settings = execution.settings as WorkflowSettings;
  const writes: BatchItem<"sqlite">[] = [];
  const event = final.status === "succeeded" ? NOTIFY_EVENTS[0] : NOTIFY_EVENTS[1];
  const notification =
    settings.notify && (settings.notify.events ?? NOTIFY_EVENTS).includes(event)
      ? notificationInsert(ctx.db, execution.id, event, settings.notify.url, stillHeld)
      : undefined;
  if (notification) writes.push(notification.insert);

  // An error workflow's own failures set off theirs too, but no deeper than workflow steps nest.
  const errorRunId = final.status === "failed" && settings.on_failure && execution.depth < MAX_WORKFLOW_DEPTH ? `exe_${randomToken(16)}` : undefined;
  if (errorRunId && final.status === "failed" && settings.on_failure) {
    const input = {
      execution: {
        id: execution.id,
        workflow_id: execution.workflowId,
        input_data: execution.input,
        failed_step_id: final.failedStepId,
        error_message: final.errorMessage,
      },
      error: final.errorMessage,
    };
    writes.push(
      insertFromWorkflow(
        ctx,
        settings.on_failure.workflow_id,
        { id: errorRunId, userId: execution.userId, credentialId: execution.credentialId, input, parentExecutionId: execution.id, depth: execution.depth + 1 },
        stillHeld,
      ),
    );
  }

  /** Queues what the batch wrote; a lost message is the sweep's to find, so failures are only logged. */
  async function send(): Promise<void> {
    const queue = ctx.bindings.WORKFLOW_RUNS;
    await Promise.all([
      notification ? enqueueNotification(queue, notification.id) : undefined,
      errorRunId ? enqueueExecution(queue, errorRunId) : undefined,
    ]).catch((error) =>
      console.error(
        JSON.stringify({ level: "error", message: "follow-up of a run's end not queued", execution_id: execution.id, error: loggableError(error) }),
      ),
    );
  }
  return { writes, send };
}
