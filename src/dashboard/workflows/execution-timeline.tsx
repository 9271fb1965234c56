import type { presentExecution } from "../../executions/present";
import { Fact, JsonBlock, formatDuration, formatTime } from "../common";

export type ExecutionView = Awaited<ReturnType<typeof presentExecution>>;
export type StepRecord = NonNullable<ExecutionView["steps"]>[number];

/**
 * A for_each over 1000 items can leave ~100 000 step records: the page shows the first ones, in
 * the order they ran, and says where the rest are.
 */
export const STEP_RECORDS_SHOWN = 200;

export const TIMELINE_STYLE = `
.timeline{list-style:none;margin:0;padding:0}
.timeline>li{border:1px solid #d1d5db;border-radius:8px;background:#fff;padding:8px 12px;margin:0 0 12px;overflow-wrap:anywhere}
.timeline>li:target{outline:3px solid #f59e0b;outline-offset:2px}
.timeline p{margin:4px 0}
.track{height:8px;background:#f3f4f6;border-radius:4px;margin:6px 0;position:relative}
.track span{position:absolute;top:0;bottom:0;background:#1d4ed8;border-radius:4px;min-width:4px}
`;

export const recordAnchor = (index: number) => `record-${index}`;

/**
 * The per-step timeline: each step record in the order it ran (a loop's steps once per item),
 * with a bar placing it within the run, its facts, its error and, folded, its result.
 */
export function StepTimeline(props: { execution: ExecutionView }) {
  const all = props.execution.steps ?? [];
  if (all.length === 0) return <p>No step has run yet.</p>;
  const records = all.slice(0, STEP_RECORDS_SHOWN);
  const times = records.flatMap((r) => [r.started_at, r.finished_at]).filter((t): t is string => Boolean(t));
  const start = Date.parse(props.execution.started_at ?? props.execution.created_at);
  const end = Math.max(start + 1, ...times.map(Date.parse), props.execution.finished_at ? Date.parse(props.execution.finished_at) : 0);
  const more = all.length - records.length;
  return (
    <>
      {more > 0 ? (
        <p>
          The first {records.length} of {all.length} step records.
        </p>
      ) : null}
      <ol class="timeline" aria-label="Steps in the order they ran">
        {records.map((record, index) => (
          <StepRecordItem record={record} anchor={recordAnchor(index)} start={start} span={end - start} />
        ))}
      </ol>
      {more > 0 ? (
        <p class="notice">
          {more} more {more === 1 ? "step" : "steps"}: see <code>GET /v1/executions/{props.execution.id}</code>.
        </p>
      ) : null}
    </>
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
        <Fact term="Attempts">{String(record.attempts)}</Fact>
        {record.item !== null ? <Fact term="Item">{String(record.item)}</Fact> : null}
        <Fact term="Started">{formatTime(record.started_at)}</Fact>
        <Fact term="Finished">{formatTime(record.finished_at)}</Fact>
        <Fact term="Duration">
          {record.duration_ms !== null && record.duration_ms >= 1000
            ? `${formatDuration(record.duration_ms)} (${record.duration_ms} ms)`
            : formatDuration(record.duration_ms)}
        </Fact>
        {record.tokens_used ? <Fact term="Tokens">{String(record.tokens_used)}</Fact> : null}
        {record.resume_at ? <Fact term="Resumes">{formatTime(record.resume_at)}</Fact> : null}
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

const clamp = (value: number, max = 100) => Math.round(Math.min(Math.max(value, 0), max) * 100) / 100;
