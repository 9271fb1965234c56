// Sending traces to an OpenTelemetry collector as OTLP/HTTP JSON (DESIGN §6.3 Traces), when the
// deployment sets OTEL_EXPORTER_OTLP_ENDPOINT. The export is best effort: bounded in size and
// time, never retried, never thrown, so a collector that is down or slow changes no turn or run.

import type { Config } from "../core/config";
import { withoutQueryStrings } from "../lib/safe-log";
import { type AttributeValue, MAX_SPANS_PER_TRACE, type Span, bounded } from "./spans";

/** The service the spans come from (the `service.name` resource attribute). */
export const SERVICE_NAME = "agent-automation-hub";
/** One export request carries at most this many spans. */
export const SPANS_PER_REQUEST = MAX_SPANS_PER_TRACE;
/** One export request's deadline. */
export const EXPORT_TIMEOUT_MS = 5_000;

const STATUS_CODE = { unset: 0, ok: 1, error: 2 } as const;

function otlpValue(value: AttributeValue) {
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  return { stringValue: value };
}

const otlpAttributes = (attributes: Record<string, AttributeValue>) => Object.entries(attributes).map(([key, value]) => ({ key, value: otlpValue(value) }));

/** Milliseconds since the epoch as OTLP's decimal string of nanoseconds. */
const nanos = (ms: number) => `${Math.max(0, Math.round(ms))}000000`;

/** An ExportTraceServiceRequest in OTLP's JSON encoding (ids as hex, 64-bit integers as strings). */
export function otlpRequest(spans: Span[]) {
  return {
    resourceSpans: [
      {
        resource: { attributes: otlpAttributes({ "service.name": SERVICE_NAME }) },
        scopeSpans: [
          {
            scope: { name: SERVICE_NAME },
            spans: spans.map((span) => ({
              traceId: span.traceId,
              spanId: span.spanId,
              ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
              name: span.name,
              kind: span.kind,
              startTimeUnixNano: nanos(span.startMs),
              endTimeUnixNano: nanos(Math.max(span.endMs, span.startMs)),
              attributes: otlpAttributes(span.attributes),
              status:
                span.status === "error"
                  ? { code: STATUS_CODE.error, message: String(span.attributes["error.type"] ?? "error") }
                  : { code: STATUS_CODE[span.status] },
            })),
          },
        ],
      },
    ],
  };
}

/**
 * POSTs the spans to `<endpoint>/v1/traces`, SPANS_PER_REQUEST at a time, each request within
 * EXPORT_TIMEOUT_MS. Does nothing without an endpoint. A failure is logged once (the endpoint
 * without its query, never the headers) and the rest is dropped; it never throws.
 */
export async function exportSpans(config: Pick<Config, "otel">, spans: Span[]): Promise<boolean> {
  const { endpoint, headers } = config.otel;
  if (!endpoint || spans.length === 0) return true;
  const url = `${endpoint}/v1/traces`;
  const kept = bounded(spans);
  try {
    for (let at = 0; at < kept.length; at += SPANS_PER_REQUEST) {
      const response = await fetch(url, {
        method: "POST",
        headers: { ...headers, "Content-Type": "application/json" },
        body: JSON.stringify(otlpRequest(kept.slice(at, at + SPANS_PER_REQUEST))),
        signal: AbortSignal.timeout(EXPORT_TIMEOUT_MS),
      });
      // The body is read so the connection is released; OTLP answers are small.
      await response.arrayBuffer().catch(() => undefined);
      if (!response.ok) throw new Error(`the collector answered ${response.status}`);
    }
    return true;
  } catch (error) {
    const reason =
      error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")
        ? `no answer within ${EXPORT_TIMEOUT_MS} ms`
        : error instanceof Error
          ? error.message
          : String(error);
    console.warn(
      JSON.stringify({
        level: "warn",
        message: "trace not exported",
        endpoint: withoutQueryStrings(url),
        trace_id: kept[0]?.traceId,
        reason: withoutQueryStrings(reason),
      }),
    );
    return false;
  }
}
