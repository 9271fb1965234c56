import { DataTable } from "../common";
import { formatInstant } from "./agent-schedule";

/** One of the agent's recent executions, as the chart and the table show it. */
export interface RunRow {
  id: string;
  status: string;
  startedAt: Date | null;
  createdAt: Date;
  durationMs: number | null;
}

const WIDTH = 600;
const HEIGHT = 200;
const PLOT_TOP = 24;
const PLOT_HEIGHT = HEIGHT - PLOT_TOP - 8;

/** Each status has a colour and a fill pattern of its own, so the chart never relies on colour alone. */
const LOOKS: Record<"succeeded" | "failed" | "other", { fill: string; label: string }> = {
  succeeded: { fill: "#047857", label: "Succeeded (solid)" },
  failed: { fill: "url(#run-failed)", label: "Failed (striped)" },
  other: { fill: "url(#run-other)", label: "Not finished or cancelled (dotted)" },
};

const lookOf = (status: string) => (status === "succeeded" || status === "failed" ? status : "other");

export function formatDuration(ms: number | null): string {
  if (ms === null) return "not finished";
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

function Patterns() {
  return (
    <defs>
      <pattern id="run-failed" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
        <rect width="8" height="8" fill="#b91c1c" />
        <line x1="0" y1="0" x2="0" y2="8" stroke="#fff" stroke-width="3" />
      </pattern>
      <pattern id="run-other" width="6" height="6" patternUnits="userSpaceOnUse">
        <rect width="6" height="6" fill="#4b5563" />
        <circle cx="3" cy="3" r="1.5" fill="#fff" />
      </pattern>
    </defs>
  );
}

/**
 * The agent's recent runs, oldest on the left: one bar per run, its height the run's duration.
 * Drawn server-side as inline SVG (no script); each bar has a <title>, a legend explains colours
 * and patterns, and the table after it lists the same runs for screen readers and keyboards.
 */
export function RunsChart(props: { runs: RunRow[] }) {
  const runs = [...props.runs].reverse();
  const longest = Math.max(1, ...runs.map((run) => run.durationMs ?? 0));
  const slot = WIDTH / Math.max(runs.length, 10);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="runs-chart-title">
        <title id="runs-chart-title">{`Durations of the last ${runs.length} runs, oldest first; the longest took ${formatDuration(longest)}. The table below lists the same runs.`}</title>
        <Patterns />
        <text x="0" y="14" font-size="13" fill="#374151">
          {`longest ${formatDuration(longest)}`}
        </text>
        <line x1="0" y1={HEIGHT - 8} x2={WIDTH} y2={HEIGHT - 8} stroke="#6b7280" stroke-width="1" />
        {runs.map((run, index) => {
          const height = Math.max(3, Math.round(((run.durationMs ?? 0) / longest) * PLOT_HEIGHT));
          return (
            <rect
              x={Math.round(index * slot + slot * 0.15)}
              y={HEIGHT - 8 - height}
              width={Math.max(2, Math.round(slot * 0.7))}
              height={height}
              fill={LOOKS[lookOf(run.status)].fill}
              stroke="#1a1a1a"
              stroke-width="0.5"
            >
              <title>{`${run.id}: ${run.status}, ${formatDuration(run.durationMs)}, ${formatInstant(run.startedAt ?? run.createdAt)}`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption>
        <ul class="legend">
          {Object.values(LOOKS).map((look) => (
            <li>
              <svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true">
                <rect width="14" height="14" fill={look.fill} stroke="#1a1a1a" stroke-width="0.5" />
              </svg>
              {look.label}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}

/** The same runs as a table, newest first, each linked to its execution page. */
export function RunsTable(props: { runs: RunRow[] }) {
  return (
    <DataTable
      rows={props.runs}
      caption="Recent runs, newest first"
      captionHidden
      columns={[
        {
          label: "Run",
          cell: (run) => (
            <a href={`/app/executions/${encodeURIComponent(run.id)}`}>
              <code>{run.id}</code>
            </a>
          ),
        },
        { label: "Status", cell: (run) => run.status },
        { label: "Started", cell: (run) => (run.startedAt ? formatInstant(run.startedAt) : "not yet") },
        { label: "Duration", cell: (run) => formatDuration(run.durationMs) },
      ]}
    />
  );
}
