import type { presentExecution } from "../../workflows/executions";
import { formatDuration, formatTime } from "./workflow-fields";

export type ExecutionView = Awaited<ReturnType<typeof presentExecution>>;
export type StepRecord = NonNullable<ExecutionView["steps"]>[number];

/** Longer results are cut on the page; the API has them whole. */
const MAX_SHOWN_JSON = 20_000;

export const TIMELINE_STYLE = `
.timeline{list-style:none;margin:0;padding:0}
.timeline>li{border:1px solid #d1d5db;border-radius:8px;background:#fff;padding:8px 12px;margin:0 0 12px;overflow-wrap:anywhere}
.timeline>li:target{outline:3px solid #f59e0b;outline-offset:2px}
.timeline p{margin:4px 0}
.step-type{font-size:.875rem;background:#e5e7eb;color:#111827;border-radius:999px;padding:0 8px}
.badge{display:inline-block;font-size:.875rem;border-radius:999px;padding:0 8px;background:#e5e7eb;color:#111827;font-weight:600}
.badge.succeeded{background:#dcfce7;color:#14532d}.badge.failed,.badge.cancelled{background:#fee2e2;color:#7f1d1d}
.badge.running,.badge.waiting,.badge.retrying,.badge.queued{background:#fef3c7;color:#78350f}
.track{height:8px;background:#f3f4f6;border-radius:4px;margin:6px 0;position:relative}
.track span{position:absolute;top:0;bottom:0;background:#1d4ed8;border-radius:4px;min-width:4px}
dl.facts{display:flex;flex-wrap:wrap;gap:2px 16px;margin:4px 0}dl.facts div{display:flex;gap:4px}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
`;

/** A value as indented JSON, cut when very long. */
export function JsonBlock(props: { value: unknown }) {
  const text = JSON.stringify(props.value, null, 2) ?? "null";
  const shown = text.length > MAX_SHOWN_JSON ? `${text.slice(0, MAX_SHOWN_JSON)}\n… (cut: the API has the whole value)` : text;
  return (
    <div class="pre-wrap">
      <pre>{shown}</pre>
    </div>
  );
}

export const recordAnchor = (index: number) => `record-${index}`;

/**
 * The per-step timeline: each step record in the order it ran (a loop's steps once per item),
 * with a bar placing it within the run, its facts, its error and, folded, its result.
 */
export function StepTimeline(props: { execution: ExecutionView }) {
  const records = props.execution.steps ?? [];
  if (records.length === 0) return <p>No step has run yet.</p>;
  const times = records.flatMap((r) => [r.started_at, r.finished_at]).filter((t): t is string => Boolean(t));
  const start = Date.parse(props.execution.started_at ?? props.execution.created_at);
  const end = Math.max(start + 1, ...times.map(Date.parse), props.execution.finished_at ? Date.parse(props.execution.finished_at) : 0);
  return (
    <ol class="timeline" aria-label="Steps in the order they ran">
      {records.map((record, index) => (
        <StepRecordItem record={record} anchor={recordAnchor(index)} start={start} span={end - start} />
      ))}
    </ol>
  );
}

function StepRecordItem(props: { record: StepRecord; anchor: string; start: number; span: number }) {
  const { record } = props;
  const label = record.item === null ? record.step_id : `${record.step_id} (item ${record.item})`;
  const from = record.started_at ? Date.parse(record.started_at) : undefined;
  const to = record.finished_at ? Date.parse(record.finished_at) : from;
  const left = from === undefined ? 0 : ((from - props.start) / props.span) * 100;
  const width = from === undefined || to === undefined ? 0 : ((to - from) / props.span) * 100;
  return (
    <li id={props.anchor}>
      <p>
        <code>{label}</code> <span class="step-type">{record.type}</span> <span class={`badge ${record.status}`}>{record.status}</span>
      </p>
      {from !== undefined ? (
        <div class="track" aria-hidden="true">
          <span style={`left:${clamp(left)}%;width:${clamp(width, 100 - clamp(left))}%`} />
        </div>
      ) : null}
      <dl class="facts">
        <Fact term="Attempts" value={String(record.attempts)} />
        {record.item !== null ? <Fact term="Item" value={String(record.item)} /> : null}
        <Fact term="Started" value={formatTime(record.started_at)} />
        <Fact term="Finished" value={formatTime(record.finished_at)} />
        <Fact
          term="Duration"
          value={
            record.duration_ms !== null && record.duration_ms >= 1000
              ? `${formatDuration(record.duration_ms)} (${record.duration_ms} ms)`
              : formatDuration(record.duration_ms)
          }
        />
        {record.tokens_used ? <Fact term="Tokens" value={String(record.tokens_used)} /> : null}
        {record.resume_at ? <Fact term="Resumes" value={formatTime(record.resume_at)} /> : null}
      </dl>
      {record.error_message ? <p class="error">Error: {record.error_message}</p> : null}
      {record.result !== null && record.result !== undefined ? (
        <details>
          <summary>Result of {label}</summary>
          <JsonBlock value={record.result} />
        </details>
      ) : null}
    </li>
  );
}

export function Fact(props: { term: string; value: string }) {
  return (
    <div>
      <dt>{props.term}:</dt>
      <dd>{props.value}</dd>
    </div>
  );
}

const clamp = (value: number, max = 100) => Math.round(Math.min(Math.max(value, 0), max) * 100) / 100;
