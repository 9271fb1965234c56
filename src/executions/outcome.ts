import type { Execution, ExecutionStep } from "../db/schema";

/**
 * What the consumer does with the message after a drive. A run that this drive ended carries
 * its final row and its steps (as checkpointed), so a caller waiting for it need not read them back.
 */
export type DriveOutcome = { done: true; ended?: EndedRun } | { done: false; resumeInSeconds: number };

export interface EndedRun {
  execution: Execution;
  /** The steps as this runner checkpointed them; absent when someone else ended the run. */
  steps?: ExecutionStep[];
}

/** Thrown to stop walking the steps: the execution waits (delay, retry) or has ended. */
export class Pause {
  constructor(readonly outcome: DriveOutcome) {}
}
