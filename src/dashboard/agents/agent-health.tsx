import type { AgentView } from "./agent-page";
import { type RunRow, RunsChart, RunsTable, formatDuration } from "./agent-runs";
import { formatWhen } from "./agents-list";

/**
 * The agent's health as GET /v1/agents/{id} reports it (the `monitoring` object and the
 * performance metrics), then its recent runs drawn as a chart and listed as a table.
 */
export function AgentHealth(props: { agent: AgentView; runs: RunRow[] }) {
  const { monitoring, performance_metrics: metrics } = props.agent;
  const ms = (value: number | null | undefined) => (value === null || value === undefined ? "none yet" : formatDuration(value));
  const stats: [string, string][] = [
    ["Executions", String(monitoring.execution_count)],
    ["Succeeded", String(monitoring.success_count)],
    ["Failed", String(monitoring.failure_count)],
    ["Success rate", monitoring.execution_count ? `${monitoring.success_rate}%` : "no runs yet"],
    ["Last run", formatWhen(monitoring.last_run_at)],
    ["Next run", formatWhen(monitoring.next_run_at, "not scheduled")],
    ["Median duration (p50)", ms(metrics.p50_duration_ms)],
    ["95th percentile duration (p95)", ms(metrics.p95_duration_ms)],
    ["Average duration", ms(metrics.average_duration_ms)],
    ["Runs per day (last 7 days)", String(metrics.runs_per_day ?? 0)],
    [`Runs in the last ${metrics.window_days ?? 30} days`, String(metrics.runs_in_window ?? 0)],
    ["Model tokens used", String(metrics.tokens_used ?? 0)],
  ];
  return (
    <>
      <section class="card" aria-labelledby="agent-health">
        <h2 id="agent-health">Health</h2>
        <dl class="stats" id="agent-health-stats">
          {stats.map(([term, value]) => (
            <div>
              <dt>{term}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
        <h3>Last error</h3>
        {monitoring.last_error ? (
          <p class="error" id="agent-last-error">
            {monitoring.last_error}
          </p>
        ) : (
          <p>None.</p>
        )}
      </section>
      <section class="card" aria-labelledby="agent-runs">
        <h2 id="agent-runs">Recent runs</h2>
        {props.runs.length === 0 ? (
          <p>No runs yet.</p>
        ) : (
          <>
            <RunsChart runs={props.runs} />
            <RunsTable runs={props.runs} />
          </>
        )}
      </section>
    </>
  );
}
