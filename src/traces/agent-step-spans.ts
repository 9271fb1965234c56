import { ATTR, SPAN_KIND, type Span } from "./spans";

/** What an agent step's record holds of one model request or tool call, read without trusting its shape. */
interface Timed {
  name: string;
  startMs: number;
  endMs: number;
  kind: "chat" | "execute_tool";
  attributes: Span["attributes"];
  failed: boolean;
}

type Row = Record<string, unknown>;
const rows = (value: unknown): Row[] => (Array.isArray(value) ? value.filter((v): v is Row => typeof v === "object" && v !== null) : []);
const num = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const time = (value: unknown): number | undefined => num(value) ?? (typeof value === "string" ? Date.parse(value) || undefined : undefined);

/**
 * The model requests and tool calls an `agent` step's record lists with their times, as child
 * spans of its `invoke_agent` span: from the journal while the step runs or waits
 * (`requests`, `calls` with `started_ms`), from its result once it ended (`model_requests`,
 * `tool_calls` with `started_at`). Calls that never started (refused, waiting) have no span.
 */
export function agentStepActivity(result: unknown, callKey: (n: number) => string): Timed[] {
  if (typeof result !== "object" || result === null) return [];
  const record = result as Row;
  const journal = record.kind === "agent_journal";
  const requests = rows(journal ? record.requests : record.model_requests).flatMap((request): Timed[] => {
    const start = time(journal ? request.started_ms : request.started_at);
    const ms = num(journal ? request.ms : request.duration_ms);
    const model = str(request.model);
    if (start === undefined || ms === undefined) return [];
    return [
      {
        name: model ? `chat ${model}` : "chat",
        kind: "chat",
        startMs: start,
        endMs: start + ms,
        failed: false,
        attributes: {
          [ATTR.operation]: "chat",
          ...(model ? { [ATTR.responseModel]: model } : {}),
          [ATTR.inputTokens]: num(request.input_tokens) ?? 0,
          [ATTR.outputTokens]: num(request.output_tokens) ?? 0,
        },
      },
    ];
  });
  const calls = rows(journal ? record.calls : record.tool_calls).flatMap((call, index): Timed[] => {
    const start = time(journal ? call.started_ms : call.started_at);
    const ms = num(journal ? call.ms : call.duration_ms);
    const name = str(call.name);
    if (start === undefined || !name) return [];
    const outcome = journal ? (call.outcome as Row | undefined) : call;
    return [
      {
        name: `execute_tool ${name}`,
        kind: "execute_tool",
        startMs: start,
        endMs: start + (ms ?? 0),
        failed: outcome?.success === false,
        attributes: {
          [ATTR.operation]: "execute_tool",
          [ATTR.toolName]: name,
          // The call's idempotency key: unique in the run, the same when a restart repeats it.
          [ATTR.toolCallId]: callKey(num(call.n) ?? index + 1),
          [ATTR.toolType]: "function",
        },
      },
    ];
  });
  return [...requests, ...calls].sort((a, b) => a.startMs - b.startMs);
}

/** The activity as spans under `parent`, with ids derived from the step's so every read gives the same trace. */
export async function agentStepSpans(
  parent: Pick<Span, "traceId" | "spanId">,
  step: { executionId: string; stepKey: string; result: unknown },
  stableId: (name: string) => Promise<string>,
): Promise<Span[]> {
  // As the step keys its calls: `<execution>:<step id>[:<loop index>]:<n>`.
  const [stepId, index] = step.stepKey.split("#");
  const activity = agentStepActivity(step.result, (n) => `${step.executionId}:${stepId}${index === undefined ? "" : `:${index}`}:${n}`);
  const idBase = `execution:${step.executionId}:step:${step.stepKey}`;
  return Promise.all(
    activity.map(async (item, i) => ({
      traceId: parent.traceId,
      spanId: await stableId(`${idBase}:activity:${i}`),
      parentSpanId: parent.spanId,
      name: item.name,
      kind: item.kind === "chat" ? SPAN_KIND.client : SPAN_KIND.internal,
      startMs: item.startMs,
      endMs: Math.max(item.startMs, item.endMs),
      status: item.failed ? ("error" as const) : ("ok" as const),
      attributes: item.attributes,
    })),
  );
}
