import type { Execution } from "../db/schema";
import { randomToken } from "../lib/crypto";

/**
 * A lease is short and renewed every HEARTBEAT_MS while a step runs, so a runner that died (a
 * killed process, an evicted isolate) is noticed within seconds: the sweep resumes executions
 * whose lease ran out.
 */
export const LEASE_MS = 20_000;
export const HEARTBEAT_MS = 5_000;

/** Queues deliver at most this far in the future; longer waits are chained. */
export const MAX_QUEUE_DELAY_SECONDS = 12 * 3600;

export const newLeaseToken = () => randomToken(12);

export const isFinished = (status: Execution["status"]) => status === "succeeded" || status === "failed" || status === "cancelled";
