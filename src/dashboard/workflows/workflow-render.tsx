import type { Context } from "hono";
import { csrfToken } from "../../auth/browser-session";
import { HubError } from "../../core/errors";
import type { Workflow } from "../../db/schema";
import type { AppEnv } from "../../http/app-env";
import { listWorkflowExecutions } from "../../executions/present";
import { getOwnedWorkflow, listWorkflowSummaries, presentWorkflow } from "../../workflows/service";
import { type SignedIn, page } from "../kit";
import { type RefusalStatus, renderNotFound as notFound } from "../common";
import type { WorkflowDraft } from "./workflow-editor";
import { WorkflowPage, type WorkflowPageProps } from "./workflow-page";
import { WorkflowsListPage } from "./workflows-list";

export type PageStatus = 200 | RefusalStatus;

/** The list shows the newest workflows; one more is read to know whether there are more. */
export const WORKFLOWS_SHOWN = 100;
const EXECUTIONS_SHOWN = 20;

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
  extra: {
    draft?: WorkflowDraft;
    error?: string;
    stepErrors?: WorkflowPageProps["stepErrors"];
    placeholderWarnings?: WorkflowPageProps["placeholderWarnings"];
  } = {},
  status: PageStatus = 200,
) {
  const workflows = await listWorkflowSummaries(signedIn.ctx, WORKFLOWS_SHOWN + 1);
  const rows = workflows.slice(0, WORKFLOWS_SHOWN).map((w) => ({ id: w.id, name: w.name, status: w.status, steps: w.stepCount, updatedAt: w.updatedAt }));
  const csrf = await csrfToken(c, signedIn.ctx.actor.id);
  return page(
    c,
    <WorkflowsListPage
      {...extra}
      email={signedIn.email}
      csrf={csrf}
      workflows={rows}
      more={workflows.length > WORKFLOWS_SHOWN}
      draft={extra.draft ?? EMPTY_DRAFT}
    />,
    status,
  );
}

type WorkflowExtras = Partial<
  Pick<
    WorkflowPageProps,
    "draft" | "graphSteps" | "graphFromDraft" | "editError" | "stepErrors" | "runInput" | "runError" | "saved" | "error" | "placeholderWarnings" | "stepTest"
  >
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
    csrf: await csrfToken(c, signedIn.ctx.actor.id),
    workflow: presentWorkflow(workflow),
    executions: executions.map((run) => ({ id: run.id, status: run.status, createdAt: run.createdAt, startedAt: run.startedAt, finishedAt: run.finishedAt })),
    draft: draftOf(workflow),
    graphSteps: workflow.steps,
    runInput: runInputOf(workflow),
    ...extra,
  };
  return page(c, <WorkflowPage {...props} />, status);
}

const NOT_FOUND = {
  workflow: "This workflow does not exist, or it is not yours.",
  execution: "This execution does not exist, or it is not yours.",
  conversation: "This conversation does not exist, or it is not yours.",
};

/** Someone else's (or no) workflow, execution or conversation: the same answer, so nothing is learnt about it. */
export function renderNotFound(c: Context<AppEnv>, signedIn: SignedIn, what: keyof typeof NOT_FOUND) {
  return notFound(c, signedIn, NOT_FOUND[what], { href: "/app/workflows", label: "Back to workflows" });
}
