import type { Execution } from "../../db/schema";
import { RUN_STATUSES, RUN_TRIGGERS } from "../../executions/list";
import { DataTable, formatTime } from "../common";
import { Page } from "../layout";

/** The form's values as typed (dates are days, UTC), kept to fill the form again and to page on. */
export interface RunsForm {
  status: string;
  trigger: string;
  workflow_id: string;
  agent_id: string;
  from: string;
  until: string;
  q: string;
}

export const RUNS_FORM_FIELDS = ["status", "trigger", "workflow_id", "agent_id", "from", "until", "q"] as const;

const RUNS_STYLE = `
.filters{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:flex-end}
.filters label{display:flex;flex-direction:column;gap:2px}
.filters input[type=number]{width:8em}
td{overflow-wrap:anywhere}
.pager{display:flex;flex-wrap:wrap;gap:8px 24px}
`;

const TRIGGER_WORDS: Record<(typeof RUN_TRIGGERS)[number], string> = {
  manual: "Manual",
  schedule: "Schedule",
  webhook: "Webhook",
  poll: "Poll",
  child: "Workflow step",
  on_failure: "Error workflow",
  retry: "Retry",
  replay: "Replay",
};

/** `/app/runs` with these form values (and a page's cursor). */
export function runsHref(form: RunsForm, cursor?: string): string {
  const query = new URLSearchParams();
  for (const field of RUNS_FORM_FIELDS) if (form[field]) query.set(field, form[field]);
  if (cursor) query.set("cursor", cursor);
  const text = query.toString();
  return text ? `/app/runs?${text}` : "/app/runs";
}

export interface RunsPageProps {
  email: string;
  csrf: string;
  form: RunsForm;
  runs: Execution[];
  nextCursor: string | null;
  paged: boolean;
  error?: string;
}

/**
 * `/app/runs`: the person's runs of every workflow, newest first, with the filters of
 * GET /v1/executions in a plain GET form (so a filtered list is a link to share or bookmark).
 */
export function RunsPage(props: RunsPageProps) {
  const { form } = props;
  return (
    <Page title="Runs" email={props.email} csrf={props.csrf} style={RUNS_STYLE}>
      <h1>Runs</h1>
      <p>Every run of your workflows and agents, newest first. Finished runs are deleted after the retention period (see a workflow's settings).</p>
      <form class="filters" method="get" action="/app/runs" aria-label="Filter runs">
        <label>
          Status
          <select name="status">
            <option value="">Any</option>
            {RUN_STATUSES.map((status) => (
              <option value={status} selected={form.status === status}>
                {status}
              </option>
            ))}
          </select>
        </label>
        <label>
          Started by
          <select name="trigger">
            <option value="">Anything</option>
            {RUN_TRIGGERS.map((trigger) => (
              <option value={trigger} selected={form.trigger === trigger}>
                {TRIGGER_WORDS[trigger]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Workflow id
          <input type="number" name="workflow_id" min="1" value={form.workflow_id} />
        </label>
        <label>
          Agent id
          <input type="text" name="agent_id" maxlength={64} value={form.agent_id} />
        </label>
        <label>
          From (UTC day)
          <input type="date" name="from" value={form.from} />
        </label>
        <label>
          Until (UTC day, included)
          <input type="date" name="until" value={form.until} />
        </label>
        <label>
          Input or error contains
          <input type="search" name="q" maxlength={200} value={form.q} />
        </label>
        <button type="submit">Filter</button>
        <a href="/app/runs">Clear</a>
      </form>
      {props.error ? (
        <p class="error" role="alert">
          {props.error}
        </p>
      ) : null}
      {props.runs.length === 0 ? (
        <p>{props.paged ? "No older runs." : "No runs match."}</p>
      ) : (
        <DataTable
          rows={props.runs}
          caption="Runs, newest first"
          captionHidden
          columns={[
            {
              label: "Run",
              cell: (run) => (
                <a href={`/app/executions/${run.id}`}>
                  <code>{run.id}</code>
                </a>
              ),
            },
            { label: "Status", cell: (run) => <span class={`badge ${run.status}`}>{run.status}</span> },
            { label: "Workflow", cell: (run) => <a href={`/app/workflows/${run.workflowId}`}>{`#${run.workflowId}`}</a> },
            { label: "Started by", cell: (run) => (run.agentId ? `${TRIGGER_WORDS[run.trigger]} (agent ${run.agentId})` : TRIGGER_WORDS[run.trigger]) },
            { label: "Started", cell: (run) => <time datetime={run.createdAt.toISOString()}>{formatTime(run.createdAt)}</time> },
            { label: "Error", cell: (run) => run.errorMessage ?? "" },
          ]}
        />
      )}
      {props.paged || props.nextCursor ? (
        <nav class="pager" aria-label="Run pages">
          {props.paged ? <a href={runsHref(form)}>Newest runs</a> : null}
          {props.nextCursor ? <a href={runsHref(form, props.nextCursor)}>Older runs</a> : null}
        </nav>
      ) : null}
    </Page>
  );
}
