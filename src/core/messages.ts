/** Queue message that drives one execution forward. */
export interface ExecutionMessage {
  kind: "execution";
  execution_id: string;
}

/** Queue message that sends (or retries) one execution notification (`settings.notify`). */
export interface NotificationMessage {
  kind: "notification";
  notification_id: string;
}

/** Messages on the `workflow-runs` queue; unknown kinds are acked and logged. */
export type WorkflowRunMessage = ExecutionMessage | NotificationMessage | { kind: string; [field: string]: unknown };
