import type { Env } from "../env";

/** Messages on the `workflow-runs` queue; each kind has one handler. */
export type WorkflowRunMessage = { kind: string; [field: string]: unknown };

type Handler = (message: WorkflowRunMessage, env: Env) => Promise<void>;

/** Filled in by the workflows feature (one handler per message kind). */
const handlers: Record<string, Handler> = {};

/**
 * Each message is acked or retried on its own, so one failure never redelivers the batch.
 * A message of a kind nobody handles is acked and logged: retrying could never succeed.
 */
export async function consumeWorkflowRuns(batch: MessageBatch<WorkflowRunMessage>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const handler = handlers[message.body?.kind];
    if (!handler) {
      console.warn(JSON.stringify({ level: "warn", message: "unhandled workflow-runs message", kind: message.body?.kind, id: message.id }));
      message.ack();
      continue;
    }
    try {
      await handler(message.body, env);
      message.ack();
    } catch (error) {
      console.error(JSON.stringify({ level: "error", message: "workflow-runs message failed", id: message.id, error: String(error) }));
      message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts) });
    }
  }
}
