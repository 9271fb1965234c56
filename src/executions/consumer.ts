import type { Runtime } from "../core/context";
import { driveExecution } from "./drive";
import { enqueueExecution } from "./queue";
import type { WorkflowRunMessage } from "../core/messages";
import { loggableError } from "../lib/safe-log";
import { handleNotificationMessage } from "./notifications";

/**
 * Each message is handled on its own (concurrently: executions are independent and
 * lease-protected) and acked on its own, so one failure never redelivers the others. A waiting
 * execution comes back as a new delayed message; a message nobody handles is acked and logged.
 */
export async function consumeWorkflowRuns(batch: MessageBatch<WorkflowRunMessage>, runtimeFor: (messageId: string) => Runtime): Promise<void> {
  await Promise.all(batch.messages.map((message) => handle(message, runtimeFor(message.id))));
}

async function handle(message: Message<WorkflowRunMessage>, runtime: Runtime): Promise<void> {
  const body = message.body;
  if (body?.kind === "notification" && typeof body.notification_id === "string") {
    // Its own retries are scheduled by the row (and the sweep), never by redelivery.
    await handleNotificationMessage(runtime, body.notification_id);
    message.ack();
    return;
  }
  if (body?.kind !== "execution" || typeof body.execution_id !== "string") {
    console.warn(JSON.stringify({ level: "warn", message: "unhandled workflow-runs message", kind: body?.kind, id: message.id }));
    message.ack();
    return;
  }
  try {
    const outcome = await driveExecution(runtime, body.execution_id);
    if (!outcome.done) await enqueueExecution(runtime.bindings.WORKFLOW_RUNS, body.execution_id, outcome.resumeInSeconds);
    message.ack();
  } catch (error) {
    console.error(JSON.stringify({ level: "error", message: "execution drive failed", execution_id: body.execution_id, error: loggableError(error) }));
    message.retry({ delaySeconds: Math.min(300, 2 ** Math.min(message.attempts, 8)) });
  }
}
