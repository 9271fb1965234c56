import { Page } from "../layout";
import { EditorsOnly } from "../workspace-switcher";
import { EDITOR_STYLE, WorkflowErrors, WorkflowFields, type WorkflowDraft } from "./workflow-editor";
import { DataTable, formatTime } from "../common";
import type { StepErrorGroup } from "./workflow-fields";
import { PlaceholderWarnings } from "./step-test";

export interface WorkflowRow {
  id: number;
  name: string;
  status: string;
  steps: number;
  updatedAt: Date;
}

/** "active", or "inactive (paused)": whether it runs, then the status it really has. */
export const statusText = (status: string) => (status === "active" ? "active" : `inactive (${status})`);

/** `/app/workflows`: the person's workflows and a form for a new one. */
export function WorkflowsListPage(props: {
  email: string;
  csrf: string;
  workflows: WorkflowRow[];
  /** More workflows than the list shows exist (the API pages through them all). */
  more?: boolean;
  draft: WorkflowDraft;
  error?: string;
  stepErrors?: StepErrorGroup[];
  /** Placeholders of the entered steps that would have no value: shown before creating, with "Create anyway". */
  placeholderWarnings?: StepErrorGroup[];
}) {
  return (
    <Page title="Workflows" email={props.email} csrf={props.csrf} style={EDITOR_STYLE}>
      <h1>Workflows</h1>
      <EditorsOnly>
        <p>
          <a href="/app/workflows/import">Import a bundle or an n8n export</a>
        </p>
      </EditorsOnly>
      <section class="card" aria-labelledby="your-workflows">
        <h2 id="your-workflows">Your workflows</h2>
        {props.workflows.length === 0 ? (
          <p>No workflow yet: create one below, or turn a chat's tool calls into one from its conversation.</p>
        ) : (
          <>
            {props.more ? (
              <p>
                Showing the newest {props.workflows.length} of {props.workflows.length}+ workflows; <code>GET /v1/workflows</code> pages through them all.
              </p>
            ) : null}
            <DataTable
              rows={props.workflows}
              columns={[
                {
                  label: "Name",
                  cell: (workflow) => (
                    <a href={`/app/workflows/${workflow.id}`} aria-label={`Open ${workflow.name}`}>
                      {workflow.name}
                    </a>
                  ),
                },
                { label: "Status", cell: (workflow) => statusText(workflow.status) },
                { label: "Steps", cell: (workflow) => workflow.steps },
                { label: "Updated", cell: (workflow) => formatTime(workflow.updatedAt) },
              ]}
            />
          </>
        )}
      </section>
      <EditorsOnly>
        <section class="card" aria-labelledby="new-workflow">
          <h2 id="new-workflow">New workflow</h2>
          <WorkflowErrors message={props.error} groups={props.stepErrors} />
          <PlaceholderWarnings groups={props.placeholderWarnings} anyway={{ id: "new-workflow-create-anyway", label: "Create anyway" }} />
          <form method="post" action="/app/workflows">
            <input type="hidden" name="csrf_token" value={props.csrf} />
            <WorkflowFields prefix="new-workflow" draft={props.draft} />
            <div class="actions">
              <button type="submit" name="step" value="create">
                Create workflow
              </button>
              {props.placeholderWarnings?.length ? (
                <button type="submit" class="secondary" name="step" value="create_anyway" id="new-workflow-create-anyway">
                  Create anyway
                </button>
              ) : null}
            </div>
          </form>
        </section>
      </EditorsOnly>
    </Page>
  );
}
