import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { ServiceContext } from "../core/context";
import type { AppEnv } from "../http/app-env";
import { loggableError } from "../lib/safe-log";
import { type PreparedCall, type ToolResult, newCallId, runToolCall } from "./executor";

/** The events of one tool run, named and shaped as /v1/tools/execute/stream sends them. */
export type ToolEventName = "start" | "progress" | "log" | "result" | "error" | "end";
export interface ToolEvent {
  event: ToolEventName;
  data: Record<string, unknown>;
}

type Emit = (event: ToolEventName, data: Record<string, unknown>) => Promise<void> | void;

/**
 * Runs a prepared call (the executor writes the audit record) and reports start, progress, log,
 * then result or error, then end, in that order: what /v1/tools/execute/stream sends, what the
 * dashboard streams live, and what its plain form post collects into a list. `source` goes to
 * the audit record.
 */
export async function runWithEvents(ctx: ServiceContext, call: PreparedCall, source: string, signal: AbortSignal, emit: Emit): Promise<ToolResult | undefined> {
  const callId = newCallId();
  const started = Date.now();
  await emit("start", { call_id: callId, name: call.name });
  try {
    const result = await runToolCall(
      ctx,
      call,
      {
        source,
        signal,
        onProgress: (update) => void emit("progress", { ...update }),
        onLog: (level, message) => void emit("log", { level, message }),
      },
      callId,
    );
    if (result.success) await emit("result", { ...result });
    else await emit("error", { call_id: callId, error_message: result.error_message });
    await emit("end", { call_id: callId, success: result.success, duration_ms: result.duration_ms });
    return result;
  } catch (error) {
    // The hub's own failure (the tool's failures are results): a stream cannot become a 500 now.
    console.error(JSON.stringify({ level: "error", message: "tool run failed", source, call_id: callId, error: loggableError(error) }));
    await emit("error", { call_id: callId, error_message: "The hub failed while running the tool; quote the call_id when reporting it." });
    await emit("end", { call_id: callId, success: false, duration_ms: Date.now() - started });
    return undefined;
  }
}

/** Runs the call as a text/event-stream answer; the client going away cancels the call. */
export function toolEventStream(c: Context<AppEnv>, ctx: ServiceContext, call: PreparedCall, source: string): Response {
  const cancel = new AbortController();
  c.header("X-Accel-Buffering", "no");
  return streamSSE(c, async (sse) => {
    sse.onAbort(() => cancel.abort(new Error("client disconnected")));
    let sequence = 0;
    await runWithEvents(ctx, call, source, AbortSignal.any([cancel.signal, c.req.raw.signal]), (event, data) =>
      sse.closed ? undefined : sse.writeSSE({ event, data: JSON.stringify(data), id: String(sequence++) }),
    );
  });
}
