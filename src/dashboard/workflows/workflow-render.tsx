import type { Context } from "hono";
import { csrfToken } from "../../auth/browser-session";
import { HubError } from "../../core/errors";
import type { Workflow } from "../../db/schema";
import type { AppEnv } from "../../http/app-env";
import { listWorkflowExecutions } from "../../workflows/executions";
import { getOwnedWorkflow, listWorkflows, presentWorkflow } from "../../workflows/service";
import { type SignedIn, page } from "../kit";
import { Page } from "../layout";
import type { WorkflowDraft } from "./workflow-editor";
import { WorkflowPage, type WorkflowPageProps } from "./workflow-page";
import { WorkflowsListPage } from "./workflows-list";

export type PageStatus = 200 | 404 | 409 | 422 | 429;

const WORKFLOWS_SHOWN = 100;
const EXECUTIONS_SHOWN = 20;

/** The status a service's refusal is shown with, as the REST API would answer it. */
export function statusOf(error: HubError): PageStatus {
  if (error.code === "not_found") return 404;
  if (error.code === "conflict" || error.code === "quota_exceeded" || error.code === "tool_unavailable") return 409;
  if (error.code === "rate_limited") return 429;
  return 422;
}

/** A service's refusal in one sentence, with the field problems it names. */
export function messageOf(error: HubError): string {
  const detail = error.errors?.map((e) => e.message).join(" ") ?? "";
  return `${error.message} ${detail}`.trim();
}

/** `/app/123` from a path: a positive integer id, or undefined (a not-found page then). */
export const workflowIdOf = (text: string | undefined) => (text && /^[1-9]\d{0,14}$/.test(text) ? Number(text) : undefined);

/** A workflow's saved fields as the edit form shows them. */
export function draftOf(workflow: Workflow): WorkflowDraft {
  return { name: workflow.name, description: workflow.description, steps: JSON.stringify(workflow.steps, null, 2), active: workflow.status === "active" };
}

/** The run form starts with the workflow's variables (the keys its input may override), or `{}`. */
const runInputOf = (workflow: Workflow) => (Object.keys(workflow.variables).length ? JSON.stringify(workflow.variables, null, 2) : "{}");

export const EMPTY_DRAFT: WorkflowDraft = { name: "", description: "", steps: "" };

export async function renderWorkflowsList(
  c: Context<AppEnv>,
  signedIn: SignedIn,
  extra: { draft?: WorkflowDraft; error?: string; stepErrors?: WorkflowPageProps["stepErrors"] } = {},
  status: PageStatus = 200,
) {
  const workflows = await listWorkflows(signedIn.ctx, WORKFLOWS_SHOWN);
  const rows = workflows.map((w) => ({ id: w.id, name: w.name, status: w.status, steps: w.steps.length, updatedAt: w.updatedAt }));
  const csrf = await csrfToken(c, signedIn.ctx.user.id);
  return page(c, <WorkflowsListPage email={signedIn.email} csrf={csrf} workflows={rows} draft={extra.draft ?? EMPTY_DRAFT} {...extra} />, status);
}

type WorkflowExtras = Partial<
  Pick<WorkflowPageProps, "draft" | "graphSteps" | "graphFromDraft" | "editError" | "stepErrors" | "runInput" | "runError" | "saved" | "error">
>;

/** The workflow's page, or the not-found page when it is not the person's. */
export async function renderWorkflow(c: Context<AppEnv>, signedIn: SignedIn, id: number, extra: WorkflowExtras = {}, status: PageStatus = 200) {
  let workflow: Workflow;
  try {
    workflow = await getOwnedWorkflow(signedIn.ctx, id);
  } catch (error) {
    if (error instanceof HubError && error.code === "not_found") return renderNotFound(c, signedIn, "workflow");
    throw error;
  }
  const executions = await listWorkflowExecutions(signedIn.ctx, id, EXECUTIONS_SHOWN, undefined);
  const props: WorkflowPageProps = {
    email: signedIn.email,
    csrf: await csrfToken(c, signedIn.ctx.user.id),
    workflow: presentWorkflow(workflow),
    executions: executions.map((run) => ({ id: run.id, status: run.status, createdAt: run.createdAt, startedAt: run.startedAt, finishedAt: run.finishedAt })),
    draft: draftOf(workflow),
    graphSteps: workflow.steps,
    runInput: runInputOf(workflow),
    ...extra,
  };
  return page(c, <WorkflowPage {...props} />, status);
}

/** Someone else's (or no) workflow or execution: the same answer, so nothing is learnt about it. */
export async function renderNotFound(c: Context<AppEnv>, signedIn: SignedIn, what: "workflow" | "execution" | "conversation") {
  const csrf = await csrfToken(c, signedIn.ctx.user.id);
  return page(
    c,
    <Page title="Not found" email={signedIn.email} csrf={csrf}>
      <h1>Not found</h1>
      <p role="alert">This {what} does not exist, or it is not yours.</p>
      <p>
        <a href="/app/workflows">Back to workflows</a>
      </p>
    </Page>,
    404,
  );
}
