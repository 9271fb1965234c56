import type { Context } from "hono";
import { Hono } from "hono";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import type { ServiceContext } from "../../core/context";
import { getOwnedExecution } from "../../executions/present";
import { runWorkflow } from "../../executions/start-and-run";
import { createWorkflowFromConversation } from "../../workflows/extractor";
import { createWorkflow, deleteWorkflow, getOwnedWorkflow, updateWorkflow } from "../../workflows/service";
import { validateSteps } from "../../workflows/steps";
import { placeholderWarnings } from "./placeholder-warnings";
import { testStepOnPage } from "./step-test-action";
import { executionsPages } from "./executions.routes";
import { type SignedIn, largeFormGuard, renderError, signedInForm, signedInPage, str } from "../kit";
import { messageOf, positiveIdOf, statusOf } from "../common";
import type { WorkflowDraft } from "./workflow-editor";
import { MAX_DESCRIPTION, MAX_NAME, groupStepErrors, parseInputJson, parseStepsJson } from "./workflow-fields";
import { renderNotFound, renderWorkflow, renderWorkflowsList } from "./workflow-render";

/** How long "Run workflow" waits for the run to end before showing it anyway (like `Prefer: wait=10`). */
const RUN_WAIT_MS = 10_000;
const RUN_POLL_MS = 150;

/**
 * `/app/workflows`: list and create (also from a conversation's tool calls), and one workflow's
 * page: graph, edit, run, delete. Everything goes through the workflow services with the
 * person's context, as the REST API does; executions' pages are chained from here.
 */
export const workflowsPages = new Hono<AppEnv>()
  .get("/app/workflows", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    return renderWorkflowsList(c, signedIn);
  })
  .post("/app/workflows", largeFormGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    const step = str(form.step);
    if (step === "create") return create(c, signedIn, draftFrom(form), { warn: true });
    if (step === "create_anyway") return create(c, signedIn, draftFrom(form), { warn: false });
    if (step === "from_conversation") return fromConversation(c, signedIn, str(form.conversation_id), str(form.name));
    return renderError(c, "Unknown form action.", 400);
  })
  .get("/app/workflows/:id", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    const id = positiveIdOf(c.req.param("id"));
    if (!id) return renderNotFound(c, signedIn, "workflow");
    return renderWorkflow(c, signedIn, id, { saved: c.req.query("saved") === "1" });
  })
  .post("/app/workflows/:id", largeFormGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    const id = positiveIdOf(c.req.param("id"));
    if (!id) return renderNotFound(c, signedIn, "workflow");
    const step = str(form.step);
    try {
      if (step === "save") return await save(c, signedIn, id, draftFrom(form), { warn: true });
      if (step === "save_anyway") return await save(c, signedIn, id, draftFrom(form), { warn: false });
      if (step === "test_step") return await testStepOnPage(c, signedIn, id, draftFrom(form), str(form.test_step_id) ?? "", str(form.test_input) ?? "");
      if (step === "run") return await run(c, signedIn, id, str(form.input) ?? "");
      if (step === "delete") {
        await deleteWorkflow(signedIn.ctx, id);
        return c.redirect("/app/workflows", 303);
      }
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      if (error.code === "not_found") return renderNotFound(c, signedIn, "workflow");
      return renderWorkflow(c, signedIn, id, { error: messageOf(error) }, statusOf(error));
    }
    return renderError(c, "Unknown form action.", 400);
  })
  .route("/", executionsPages);

type Form = Record<string, unknown>;

function draftFrom(form: Form): WorkflowDraft {
  return { name: (str(form.name) ?? "").trim(), description: str(form.description) ?? "", steps: str(form.steps) ?? "", active: str(form.active) === "on" };
}

/** Name and description within bounds, or the sentence saying what is wrong. */
function fieldProblem(draft: WorkflowDraft): string | undefined {
  if (!draft.name || draft.name.length > MAX_NAME) return `Give the workflow a name (at most ${MAX_NAME} characters).`;
  if (draft.description.length > MAX_DESCRIPTION) return `Keep the description under ${MAX_DESCRIPTION} characters.`;
  return undefined;
}

/** "Create workflow": like "Save changes", placeholders that would have no value are shown first; "Create anyway" creates. */
async function create(c: Context<AppEnv>, signedIn: SignedIn, draft: WorkflowDraft, options: { warn: boolean }) {
  const problem = fieldProblem(draft);
  if (problem) return renderWorkflowsList(c, signedIn, { draft, error: problem }, 422);
  const steps = parseStepsJson(draft.steps);
  if (!steps.ok) return renderWorkflowsList(c, signedIn, { draft, error: steps.message }, 422);
  if (options.warn && validateSteps(steps.value).errors.length === 0) {
    // A new workflow has no variables yet: every bare name is one the run's input would have to give.
    const warnings = placeholderWarnings(steps.value, {});
    if (warnings.length) return renderWorkflowsList(c, signedIn, { draft, placeholderWarnings: warnings });
  }
  try {
    const workflow = await createWorkflow(signedIn.ctx, { name: draft.name, description: draft.description, steps: steps.value });
    return c.redirect(`/app/workflows/${workflow.id}`, 303);
  } catch (error) {
    if (!(error instanceof HubError)) throw error;
    const stepErrors = error.errors ? groupStepErrors(steps.value, error.errors) : undefined;
    return renderWorkflowsList(c, signedIn, { draft, error: error.message, stepErrors }, statusOf(error));
  }
}

/** The chat page's "save as workflow": the conversation's successful tool calls become the steps. */
async function fromConversation(c: Context<AppEnv>, signedIn: SignedIn, conversationText: string | undefined, nameText: string | undefined) {
  const conversationId = positiveIdOf(conversationText);
  if (!conversationId) return renderNotFound(c, signedIn, "conversation");
  const name = (nameText ?? "").trim().slice(0, MAX_NAME) || `From conversation ${conversationId}`;
  try {
    const workflow = await createWorkflowFromConversation(signedIn.ctx, { conversationId, name });
    return c.redirect(`/app/workflows/${workflow.id}`, 303);
  } catch (error) {
    if (!(error instanceof HubError)) throw error;
    if (error.code === "not_found") return renderNotFound(c, signedIn, "conversation");
    return renderWorkflowsList(c, signedIn, { error: messageOf(error) }, statusOf(error));
  }
}

/**
 * "Save changes": with `warn`, steps that are valid but have placeholders that would have no value
 * are shown with those warnings first, not saved; "Save anyway" (no `warn`) saves them.
 */
async function save(c: Context<AppEnv>, signedIn: SignedIn, id: number, draft: WorkflowDraft, options: { warn: boolean }) {
  const current = await getOwnedWorkflow(signedIn.ctx, id);
  const refuse = (extra: Parameters<typeof renderWorkflow>[3]) => renderWorkflow(c, signedIn, id, { draft, ...extra }, 422);
  const problem = fieldProblem(draft);
  if (problem) return refuse({ editError: problem });
  const steps = parseStepsJson(draft.steps);
  if (!steps.ok) return refuse({ editError: steps.message });
  // Unticking "Active" pauses an active workflow; a draft or archived one keeps its status.
  const status = draft.active ? "active" : current.status === "active" ? "paused" : undefined;
  // Only steps that would be saved are warned about: invalid ones get the service's refusal first.
  if (options.warn && validateSteps(steps.value).errors.length === 0) {
    const warnings = placeholderWarnings(steps.value, current.variables);
    if (warnings.length) return renderWorkflow(c, signedIn, id, { draft, placeholderWarnings: warnings });
  }
  try {
    await updateWorkflow(signedIn.ctx, id, { name: draft.name, description: draft.description, status, steps: steps.value });
  } catch (error) {
    // Steps that are not valid, or too large (limit_exceeded): the form keeps what was entered.
    if (!(error instanceof HubError) || (error.code !== "validation_failed" && error.code !== "limit_exceeded")) throw error;
    const stepErrors = groupStepErrors(steps.value, error.errors ?? []);
    return refuse({ editError: error.message, stepErrors, graphSteps: steps.value, graphFromDraft: true });
  }
  return c.redirect(`/app/workflows/${id}?saved=1`, 303);
}

/** "Run workflow": starts the run as `POST /v1/workflows/{id}/execute` does (it runs at once), waits a little for its end, then shows it. */
async function run(c: Context<AppEnv>, signedIn: SignedIn, id: number, inputText: string) {
  const input = parseInputJson(inputText);
  if (!input.ok) return renderWorkflow(c, signedIn, id, { runInput: inputText, runError: input.message }, 422);
  try {
    const { execution } = await runWorkflow(signedIn.ctx, id, input.value);
    await whileBusy(signedIn.ctx, execution.id, Date.now() + RUN_WAIT_MS);
    return c.redirect(`/app/executions/${execution.id}`, 303);
  } catch (error) {
    if (!(error instanceof HubError) || error.code === "not_found") throw error;
    return renderWorkflow(c, signedIn, id, { runInput: inputText, runError: messageOf(error) }, statusOf(error));
  }
}

/**
 * Waits until the run is no longer queued or running, or the deadline. Unlike `Prefer: wait`,
 * a run parked at a wait_for_event step (or a delay) stops the wait: nothing will happen soon.
 */
async function whileBusy(ctx: ServiceContext, executionId: string, deadline: number) {
  while (Date.now() < deadline) {
    const { status } = await getOwnedExecution(ctx, executionId);
    if (status !== "queued" && status !== "running") return;
    await new Promise((resolve) => setTimeout(resolve, RUN_POLL_MS));
  }
}
