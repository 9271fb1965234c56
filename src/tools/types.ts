import type { z } from "@hono/zod-openapi";
import type { Config, Env } from "../env";
import type { Db } from "../db/client";
import type { AddressPolicy } from "../net/address-policy";

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** What a running tool may use; the same for the REST API, the orchestrator and workflows. */
export interface ToolContext {
  userId: number;
  db: Db;
  env: Env;
  config: Config;
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

export type JsonSchema = Record<string, unknown>;

/** A catalog entry, as GET /v1/tools shows it. */
export interface ToolInfo {
  name: string;
  title: string;
  description: string;
  source: "builtin" | "platform" | "mcp";
  platform: string | null;
  connection_id: number | null;
  input_schema: JsonSchema;
  available: boolean;
  unavailable_reason?: string;
}

/** A tool that needs no connection: its input is a zod schema, its work a function. */
export interface BuiltinTool<S extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: S;
  run(ctx: ToolContext, args: z.infer<S>): Promise<unknown>;
}

export function defineBuiltin<S extends z.ZodType>(tool: BuiltinTool<S>): BuiltinTool<S> {
  return tool;
}

/** A failure the tool's caller should see as-is (bad input, refused URL, remote error). */
export class ToolError extends Error {}
