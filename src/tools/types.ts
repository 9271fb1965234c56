import type { z } from "@hono/zod-openapi";
import type { ProgressUpdate, ToolContext } from "../core/tool-context";

export type { ProgressUpdate, ToolContext };

export type { ToolEffect } from "../core/tool-effects";
import type { ToolEffect } from "../core/tool-effects";

export type { JsonSchema } from "../lib/json-schema";
import type { JsonSchema } from "../lib/json-schema";

/** A catalog entry, as GET /v1/tools shows it. */
export interface ToolInfo {
  name: string;
  title: string;
  description: string;
  source: "builtin" | "platform" | "mcp";
  platform: string | null;
  connection_id: number | null;
  input_schema: JsonSchema;
  effect: ToolEffect;
  available: boolean;
  unavailable_reason?: string;
}

/** A tool that needs no connection: its input is a zod schema, its work a function. */
export interface BuiltinTool<S extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  /** What a call does: declared by each built-in. */
  effect: ToolEffect;
  input: S;
  run(ctx: ToolContext, args: z.infer<S>): Promise<unknown>;
}

export function defineBuiltin<S extends z.ZodType>(tool: BuiltinTool<S>): BuiltinTool<S> {
  return tool;
}

/** A failure the tool's caller should see as-is (bad input, refused URL, remote error). */
export class ToolError extends Error {}
