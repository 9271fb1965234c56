import type { TraceView } from "../../traces/spans";
import { Fact, formatDuration, formatTime } from "../common";
import { Page } from "../layout";

type SpanView = TraceView["spans"][number];

const WATERFALL_STYLE = `
.waterfall{list-style:none;margin:0;padding:0}
.waterfall>li{border-bottom:1px solid #e5e7eb;padding:6px 0;overflow-wrap:anywhere}
.waterfall>li.child .span-name{padding-left:16px}
.waterfall p{margin:2px 0}
.span-name code{font-weight:600}
.badge.ok{background:#dcfce7;color:#14532d}.badge.error{background:#fee2e2;color:#7f1d1d}
.track{height:10px;background:#f3f4f6;border-radius:4px;margin:4px 0;position:relative}
.track span{position:absolute;top:0;bottom:0;background:#1d4ed8;border-radius:4px;min-width:3px}
.track span.error{background:#b91c1c}.track span.chat{background:#6d28d9}
`;

export interface TracePageProps {
  email: string;
  csrf: string;
  /** What the trace is of, as the heading says it. */
  title: string;
  back: { href: string; label: string };
  trace: TraceView;
}

/**
 * A trace as a waterfall: each span a row, in the order the spans started, with a bar placed by
 * its start and sized by its duration within the root span, its status, duration and tokens.
 */
export function TracePage(props: TracePageProps) {
  const { trace } = props;
  const root = trace.spans[0];
  const start = root ? Date.parse(root.start_time) : 0;
  const end = Math.max(start + 1, ...trace.spans.map((s) => Date.parse(s.end_time)));
  const total = end - start;
  const tokensIn = root?.attributes["gen_ai.usage.input_tokens"];
  const tokensOut = root?.attributes["gen_ai.usage.output_tokens"];
  return (
    <Page title={props.title} email={props.email} csrf={props.csrf} style={WATERFALL_STYLE}>
      <h1>{props.title}</h1>
      <p>
        <a href={props.back.href}>{props.back.label}</a>
      </p>
      <section class="card" aria-labelledby="trace-facts">
        <h2 id="trace-facts">Trace</h2>
        <dl class="facts">
          <Fact term="Trace id">
            <code>{trace.trace_id}</code>
          </Fact>
          <Fact term="Started">{formatTime(root?.start_time ?? null)}</Fact>
          <Fact term="Duration">{formatDuration(root?.duration_ms ?? null)}</Fact>
          <Fact term="Spans">{String(trace.spans.length)}</Fact>
          {tokensIn !== undefined ? <Fact term="Tokens">{`${tokensIn} in, ${tokensOut ?? 0} out`}</Fact> : null}
        </dl>
        <p class="meta">
          The same spans the API answers, in OpenTelemetry's GenAI conventions; with <code>OTEL_EXPORTER_OTLP_ENDPOINT</code> set they also go to your
          collector.
        </p>
      </section>
      <section class="card" aria-labelledby="trace-waterfall">
        <h2 id="trace-waterfall">Spans</h2>
        <ol class="waterfall" aria-label="Spans in the order they started">
          {trace.spans.map((span) => (
            <SpanRow span={span} start={start} total={total} />
          ))}
        </ol>
      </section>
    </Page>
  );
}

function SpanRow(props: { span: SpanView; start: number; total: number }) {
  const { span } = props;
  const from = Date.parse(span.start_time) - props.start;
  const left = clamp((from / props.total) * 100);
  const width = clamp((span.duration_ms / props.total) * 100, 100 - left);
  const operation = span.attributes["gen_ai.operation.name"];
  const input = span.attributes["gen_ai.usage.input_tokens"];
  const output = span.attributes["gen_ai.usage.output_tokens"];
  const errorType = span.attributes["error.type"];
  return (
    <li class={span.parent_span_id ? "child" : "root"}>
      <p class="span-name">
        <code>{span.name}</code> <span class={`badge ${span.status}`}>{span.status}</span> {formatDuration(span.duration_ms)}
        {input !== undefined ? ` · ${input} in, ${output ?? 0} out tokens` : null}
        {errorType !== undefined ? ` · error: ${errorType}` : null}
      </p>
      <div class="track" aria-hidden="true">
        <span class={span.status === "error" ? "error" : operation === "chat" ? "chat" : ""} style={`left:${left}%;width:${width}%`} />
      </div>
      <p class="meta">
        starts at +{from} ms
        {span.attributes["gen_ai.tool.call.id"] !== undefined ? (
          <>
            {" "}
            · call <code>{String(span.attributes["gen_ai.tool.call.id"])}</code>
          </>
        ) : null}
      </p>
    </li>
  );
}

const clamp = (value: number, max = 100) => Math.round(Math.min(Math.max(value, 0), max) * 100) / 100;
