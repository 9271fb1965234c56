import type { childExecutions } from "../../executions/present";
import { ErrorNote, Page } from "../layout";
import { Fact, JsonBlock, formatDuration, formatTime } from "../common";
import { type ExecutionView, STEP_RECORDS_SHOWN, StepTimeline, TIMELINE_STYLE, recordAnchor } from "./execution-timeline";

export type ChildRun = Awaited<ReturnType<typeof childExecutions>>[number];

const UNFINISHED = new Set(["queued", "running", "waiting"]);
const RETRYABLE = new Set(["failed", "cancelled"]);

export interface ExecutionPageProps {
  email: string;
  csrf: string;
  execution: ExecutionView;
  workflowName?: string;
  childRuns: ChildRun[];
  error?: string;
}

/** `/app/executions/<id>`: how a run went, step by step, with Retry or Cancel. */
export function ExecutionPage(props: ExecutionPageProps) {
  const { execution: run, csrf } = props;
  const action = `/app/executions/${run.id}`;
  const duration = run.started_at && run.finished_at ? formatDuration(Date.parse(run.finished_at) - Date.parse(run.started_at)) : "—";
  const records = run.steps ?? [];
  const failedAt = records.findIndex((r) => r.step_id === run.failed_step_id && r.status === "failed");
  const last = records.findLast((r) => r.status === "succeeded");
  return (
    <Page title={`Execution ${run.id}`} email={props.email} csrf={csrf} style={TIMELINE_STYLE}>
      <h1>Execution {run.id}</h1>
      <p>
        Workflow <a href={`/app/workflows/${run.workflow_id}`}>{props.workflowName ?? `#${run.workflow_id}`}</a>, version {run.workflow_version}
      </p>
      <ErrorNote message={props.error} />
      <section class="card" aria-labelledby="run-status">
        <h2 id="run-status">
          Status: <span class={`badge ${run.status}`}>{run.status}</span>
        </h2>
        {UNFINISHED.has(run.status) ? (
          <p class="notice" role="status">
            {run.status === "waiting" ? "This run is waiting (for an event or a delay) and holds no worker." : `This run is still ${run.status}.`}{" "}
            <a href={action}>Refresh</a> to see how far it got.
          </p>
        ) : null}
        <dl class="facts">
          <Fact term="Created">{formatTime(run.created_at)}</Fact>
          <Fact term="Started">{formatTime(run.started_at)}</Fact>
          <Fact term="Finished">{formatTime(run.finished_at)}</Fact>
          <Fact term="Duration">{duration}</Fact>
          {run.tokens_used ? <Fact term="Tokens">{String(run.tokens_used)}</Fact> : null}
          {run.errors_handled ? <Fact term="Step failures handled (on_error)">{String(run.errors_handled)}</Fact> : null}
        </dl>
        <RelatedRuns run={run} childRuns={props.childRuns} />
        <div class="actions">
          {RETRYABLE.has(run.status) ? (
            <form method="post" action={action}>
              <input type="hidden" name="csrf_token" value={csrf} />
              <button type="submit" name="step" value="retry">
                Retry
              </button>
            </form>
          ) : null}
          {UNFINISHED.has(run.status) ? (
            <form method="post" action={action}>
              <input type="hidden" name="csrf_token" value={csrf} />
              <button class="danger" type="submit" name="step" value="cancel">
                Cancel
              </button>
            </form>
          ) : null}
        </div>
      </section>
      <section class="card" aria-labelledby="run-data">
        <h2 id="run-data">Input and outcome</h2>
        <h3>Input</h3>
        <JsonBlock value={run.input_data} />
        {run.error_message ? (
          <>
            <h3>Error</h3>
            <p class="error">
              {run.error_message}
              {failedAt >= 0 && failedAt < STEP_RECORDS_SHOWN ? (
                <>
                  {" "}
                  <a href={`#${recordAnchor(failedAt)}`}>Go to the step that failed ({run.failed_step_id})</a>
                </>
              ) : null}
            </p>
          </>
        ) : null}
        {run.status === "succeeded" && last ? (
          <>
            <h3>Output (the result of the last step, {last.step_id})</h3>
            <JsonBlock value={last.result} />
          </>
        ) : null}
      </section>
      <section class="card" aria-labelledby="run-timeline">
        <h2 id="run-timeline">Step timeline</h2>
        <p>
          <a href={`${action}/trace`}>Trace</a>: the run as spans, drawn as a waterfall.
        </p>
        <StepTimeline execution={run} />
      </section>
    </Page>
  );
}

/** The runs this one retried, replayed or was started by, and the child runs it started. */
function RelatedRuns(props: { run: ExecutionView; childRuns: ChildRun[] }) {
  const { run } = props;
  const link = (id: string) => (
    <a href={`/app/executions/${id}`}>
      <code>{id}</code>
    </a>
  );
  return (
    <>
      {run.retry_of ? <p>Retry of {link(run.retry_of)}</p> : null}
      {run.replay_of ? <p>Replay of {link(run.replay_of)}</p> : null}
      {run.parent_execution_id ? <p>Started by {link(run.parent_execution_id)}</p> : null}
      {run.agent_id ? (
        <p>
          Run by agent <a href={`/app/agents/${run.agent_id}`}>{run.agent_id}</a>
        </p>
      ) : null}
      {props.childRuns.length ? (
        <>
          <h3>Child executions</h3>
          <ul>
            {props.childRuns.map((child) => (
              <li>
                {link(child.id)}: workflow {child.workflow_id}, {child.status}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </>
  );
}
