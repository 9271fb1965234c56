// The span model of traces (DESIGN §6.3 Traces), in OpenTelemetry's GenAI semantic conventions:
// a root `invoke_agent` (a chat turn) or `invoke_workflow` (a run) span with a child per model
// request (`chat <model>`) and per tool call (`execute_tool <tool>`). Only names, ids, models,
// token counts, times and outcomes go in attributes: never arguments, results or messages, which
// may hold personal data.

/** A trace holds at most this many spans; past it, later spans are dropped (and the root says how many). */
export const MAX_SPANS_PER_TRACE = 500;

/** OpenTelemetry span kinds (the OTLP enum's values). */
export const SPAN_KIND = { internal: 1, client: 3 } as const;

export type AttributeValue = string | number | boolean;
export type SpanStatus = "unset" | "ok" | "error";

export interface Span {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: (typeof SPAN_KIND)[keyof typeof SPAN_KIND];
  startMs: number;
  endMs: number;
  status: SpanStatus;
  attributes: Record<string, AttributeValue>;
}

/** Attribute names of the conventions, written once. */
export const ATTR = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  agentId: "gen_ai.agent.id",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  workflowName: "gen_ai.workflow.name",
  errorType: "error.type",
} as const;

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

export const newTraceId = () => hex(crypto.getRandomValues(new Uint8Array(16)));
export const newSpanId = () => hex(crypto.getRandomValues(new Uint8Array(8)));

/** A stable id of `bytes` bytes for a name (a run's trace and its steps' spans are the same at every read). */
export async function stableId(name: string, bytes: 8 | 16): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(name)));
  return hex(digest.slice(0, bytes));
}

/** Keeps the root and the first spans up to the bound; the root then says how many were dropped. */
export function bounded(spans: Span[]): Span[] {
  if (spans.length <= MAX_SPANS_PER_TRACE) return spans;
  const [root, ...rest] = spans;
  const kept = rest.slice(0, MAX_SPANS_PER_TRACE - 1);
  return [{ ...root!, attributes: { ...root!.attributes, "hub.trace.dropped_spans": rest.length - kept.length } }, ...kept];
}

/** A trace as the API answers it: times as ISO strings. */
export function presentTrace(spans: Span[]) {
  return {
    trace_id: spans[0]?.traceId ?? "",
    spans: spans.map((span) => ({
      span_id: span.spanId,
      parent_span_id: span.parentSpanId,
      name: span.name,
      kind: span.kind === SPAN_KIND.client ? ("client" as const) : ("internal" as const),
      start_time: new Date(span.startMs).toISOString(),
      end_time: new Date(span.endMs).toISOString(),
      duration_ms: Math.max(0, span.endMs - span.startMs),
      status: span.status,
      attributes: span.attributes,
    })),
  };
}

export type TraceView = ReturnType<typeof presentTrace>;
