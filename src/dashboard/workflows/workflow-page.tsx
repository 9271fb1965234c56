import { ErrorNote, Page } from "../layout";
import { EditorsOnly } from "../workspace-switcher";
import { EDITOR_STYLE, WorkflowErrors, WorkflowFields, type WorkflowDraft } from "./workflow-editor";
import { DataTable, formatDuration, formatTime } from "../common";
import { type StepErrorGroup, stepAnchor } from "./workflow-fields";
import { GRAPH_STYLE, StepGraph } from "./workflow-graph";
import { statusText } from "./workflows-list";
import { PlaceholderWarnings, StepTestFields, type StepTestView, codeStepIds } from "./step-test";

export interface WorkflowView {
  id: number;
  name: string;
  description: string;
  status: string;
  version: number;
  steps: unknown[];
  updated_at: string;
}

export interface ExecutionRow {
  id: string;
  status: string;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export interface WorkflowPageProps {
  email: string;
  csrf: string;
  workflow: WorkflowView;
  executions: ExecutionRow[];
  /** The edit form's values: the saved workflow, or what was entered when it was refused. */
  draft: WorkflowDraft;
  /** The steps the graph draws: the saved ones, or the entered ones when the edit was refused. */
  graphSteps: unknown[];
  graphFromDraft?: boolean;
  editError?: string;
  stepErrors?: StepErrorGroup[];
  runInput: string;
  runError?: string;
  saved?: boolean;
  error?: string;
  /** Placeholders of the entered steps that would have no value: shown before saving, with "Save anyway". */
  placeholderWarnings?: StepErrorGroup[];
  /** "Run this step": what it was given and what it answered. */
  stepTest?: StepTestView;
}

/** `/app/workflows/<id>`: the steps as a graph, a run form, recent executions, the editor. */
export function WorkflowPage(props: WorkflowPageProps) {
  const { workflow, csrf } = props;
  const action = `/app/workflows/${workflow.id}`;
  const refused = Boolean(props.editError || props.stepErrors?.length);
  // Each refused step's problems are also shown inside its box in the graph.
  const problems = new Map<string, string[]>();
  for (const group of props.stepErrors ?? []) {
    if (group.path)
      problems.set(
        stepAnchor(group.path),
        group.problems.map((p) => (p.field ? `${p.field}: ${p.message}` : p.message)),
      );
  }
  return (
    <Page title={workflow.name} email={props.email} csrf={csrf} style={EDITOR_STYLE + GRAPH_STYLE}>
      <h1>{workflow.name}</h1>
      <p>
        <a href="/app/workflows">Back to workflows</a> · <a href={`/app/agents/new?workflow_id=${workflow.id}`}>Deploy as an agent</a> ·{" "}
        <a href={`/app/workflows/${workflow.id}/export`} download>
          Export
        </a>
      </p>
      <p>
        Status: {statusText(workflow.status)} · version {workflow.version} · updated {formatTime(workflow.updated_at)}
      </p>
      {workflow.description ? <p>{workflow.description}</p> : null}
      {props.saved ? (
        <p class="notice" role="status">
          Changes saved.
        </p>
      ) : null}
      <ErrorNote message={props.error} />
      {refused ? (
        <>
          <WorkflowErrors message={props.editError} groups={props.stepErrors} linkSteps />
          <p>
            Nothing was saved. <a href="#edit-workflow-steps">Fix the steps in the editor</a>: it keeps what you entered.
          </p>
        </>
      ) : null}
      <PlaceholderWarnings groups={props.placeholderWarnings} />
      {props.stepTest ? (
        <p class="notice" role="status">
          Ran step "{props.stepTest.stepId}" from the editor, which keeps what you entered; nothing was saved.{" "}
          <a href="#edit-workflow-test-result">See the result</a>.
        </p>
      ) : null}
      <section class="card" aria-labelledby="workflow-steps">
        <h2 id="workflow-steps">{props.graphFromDraft ? "Steps as entered (not saved)" : "Steps"}</h2>
        <StepGraph steps={props.graphSteps} label={`Steps of ${workflow.name}, in order`} problems={problems} />
      </section>
      <EditorsOnly>
        <section class="card" aria-labelledby="run-workflow">
          <h2 id="run-workflow">Run</h2>
          <ErrorNote message={props.runError} />
          <form method="post" action={action}>
            <input type="hidden" name="csrf_token" value={csrf} />
            <label for="run-input">Input (JSON)</label>
            <p id="run-input-hint" class="hint">
              A JSON object; its keys are <code>{"{{input.…}}"}</code> in the steps and override the workflow's variables.
            </p>
            <textarea id="run-input" class="json" name="input" rows={4} spellcheck={false} aria-describedby="run-input-hint">
              {props.runInput}
            </textarea>
            <button type="submit" name="step" value="run">
              Run workflow
            </button>
          </form>
        </section>
      </EditorsOnly>
      <RecentExecutions executions={props.executions} />
      <EditorsOnly>
        <section class="card" aria-labelledby="edit-workflow">
          <h2 id="edit-workflow">Edit</h2>
          <form method="post" action={action}>
            <input type="hidden" name="csrf_token" value={csrf} />
            <WorkflowFields prefix="edit-workflow" draft={props.draft} withActive />
            <StepTestFields prefix="edit-workflow" codeStepIds={codeStepIds(draftSteps(props))} test={props.stepTest} />
            <div class="actions">
              <button type="submit" name="step" value="save">
                Save changes
              </button>
              {props.placeholderWarnings?.length ? (
                <button type="submit" class="secondary" name="step" value="save_anyway" id="edit-workflow-save-anyway">
                  Save anyway
                </button>
              ) : null}
            </div>
          </form>
        </section>
        <section class="card" aria-labelledby="delete-workflow">
          <h2 id="delete-workflow">Delete</h2>
          <p>Deleting the workflow deletes its executions and any agent deployed from it. It cannot be undone.</p>
          <form method="post" action={action}>
            <input type="hidden" name="csrf_token" value={csrf} />
            <button class="danger" type="submit" name="step" value="delete" aria-label={`Delete ${workflow.name}`}>
              Delete
            </button>
          </form>
        </section>
      </EditorsOnly>
    </Page>
  );
}

/** The code step ids the editor offers come from the steps as entered, when they still parse. */
function draftSteps(props: WorkflowPageProps): unknown[] {
  try {
    const parsed: unknown = JSON.parse(props.draft.steps || "[]");
    return Array.isArray(parsed) ? parsed : props.graphSteps;
  } catch {
    return props.graphSteps;
  }
}

function RecentExecutions(props: { executions: ExecutionRow[] }) {
  return (
    <section class="card" aria-labelledby="recent-executions">
      <h2 id="recent-executions">Recent executions</h2>
      {props.executions.length === 0 ? (
        <p>Not run yet.</p>
      ) : (
        <DataTable
          rows={props.executions}
          caption="Recent executions, newest first"
          captionHidden
          columns={[
            {
              label: "Execution",
              cell: (run) => (
                <a href={`/app/executions/${run.id}`}>
                  <code>{run.id}</code>
                </a>
              ),
            },
            { label: "Status", cell: (run) => <span class={`badge ${run.status}`}>{run.status}</span> },
            { label: "Started", cell: (run) => formatTime(run.startedAt ?? run.createdAt) },
            {
              label: "Duration",
              cell: (run) => (run.startedAt && run.finishedAt ? formatDuration(run.finishedAt.getTime() - run.startedAt.getTime()) : "—"),
            },
          ]}
        />
      )}
    </section>
  );
}
