import type { ServiceContext } from "./context";
import type { AddressPolicy } from "../net/address-policy";

/**
 * The contract between a running tool and whoever runs it (the REST API, the orchestrator,
 * workflows): built-in, platform and MCP tools all see this. It sits below both connections/
 * (whose platforms define tools) and tools/ (which runs them).
 */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** What a running tool may use; the same for the REST API, the orchestrator and workflows. */
export interface ToolContext extends ServiceContext {
  policy: AddressPolicy;
  /** Aborted when the caller goes away (an SSE client disconnects) or the deadline passes. */
  signal: AbortSignal;
  /**
   * Set when a workflow step makes the call: `<execution_id>:<step_id>:<item>`. Outbound HTTP
   * calls send it as `Idempotency-Key`, so a step re-run after a crash is seen once by targets
   * that honour the header.
   */
  idempotencyKey?: string;
  progress(update: ProgressUpdate): void;
  log(level: "debug" | "info" | "warning" | "error", message: string): void;
}
