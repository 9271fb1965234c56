/** Queue message that drives one execution forward. */
export interface ExecutionMessage {
  kind: "execution";
  execution_id: string;
}

/** Messages on the `workflow-runs` queue; unknown kinds are acked and logged. */
export type WorkflowRunMessage = ExecutionMessage | { kind: string; [field: string]: unknown };
