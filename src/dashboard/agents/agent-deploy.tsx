import type { ScheduleFields } from "./agent-schedule";
import { AGENT_STYLE, ScheduleFieldset, type SchedulePreview } from "./agent-schedule-form";
import { ErrorNote, Page } from "../layout";

export interface WorkflowChoice {
  id: number;
  name: string;
  status: string;
}

/** What the deploy form holds, kept as typed when the form comes back with a preview or an error. */
export interface DeployValues {
  name: string;
  workflowId: string;
  schedule: ScheduleFields;
}

/** `/app/agents/new`: deploy one of the person's workflows as an agent, with an optional schedule. */
export function DeployAgentPage(props: {
  email: string;
  csrf: string;
  workflows: WorkflowChoice[];
  values: DeployValues;
  minInterval: number;
  preview?: SchedulePreview;
  error?: string;
}) {
  const { values } = props;
  // With nothing (valid) asked for, the person picks: the browser would otherwise submit the first
  // workflow without anyone having chosen it.
  const chosen = props.workflows.some((workflow) => String(workflow.id) === values.workflowId);
  return (
    <Page title="Deploy an agent" email={props.email} csrf={props.csrf} style={AGENT_STYLE}>
      <h1>Deploy an agent</h1>
      <p>
        <a href="/app/agents">Back to agents</a>
      </p>
      <ErrorNote message={props.error} />
      {props.workflows.length === 0 ? (
        <p>
          You have no workflows yet. <a href="/app/workflows">Create a workflow</a> or <a href="/app/templates">start from a template</a>, then deploy it here.
        </p>
      ) : (
        <form method="post" action="/app/agents/new" class="card">
          <input type="hidden" name="csrf_token" value={props.csrf} />
          <label for="agent-name">Name</label>
          <input id="agent-name" type="text" name="name" required maxlength={100} value={values.name} />
          <label for="agent-workflow">Workflow</label>
          <select id="agent-workflow" name="workflow_id" required>
            {chosen ? null : (
              <option value="" selected>
                Choose a workflow
              </option>
            )}
            {props.workflows.map((workflow) => (
              <option value={String(workflow.id)} selected={String(workflow.id) === values.workflowId}>
                {workflow.status === "active" ? workflow.name : `${workflow.name} (${workflow.status})`}
              </option>
            ))}
          </select>
          <ScheduleFieldset fields={values.schedule} minInterval={props.minInterval} preview={props.preview} headingLevel={2} />
          <div class="actions">
            {/* A preview needs no name yet: formnovalidate lets it through the browser's own checks. */}
            <button class="secondary" type="submit" name="step" value="preview" formnovalidate>
              Preview schedule
            </button>
            <button type="submit" name="step" value="deploy">
              Deploy agent
            </button>
          </div>
        </form>
      )}
    </Page>
  );
}
