import type { Context } from "hono";
import { Hono } from "hono";
import { csrfToken } from "../../auth/browser-session";
import { HubError } from "../../core/errors";
import type { Execution } from "../../db/schema";
import type { AppEnv } from "../../http/app-env";
import { cancelExecution } from "../../executions/cancel";
import { childExecutions, getOwnedExecution, presentExecution } from "../../executions/present";
import { retryExecution } from "../../executions/retry";
import { getOwnedWorkflow } from "../../workflows/service";
import { ExecutionPage } from "./execution-page";
import { type SignedIn, formGuard, page, renderError, signedInForm, signedInPage, str } from "../kit";
import { isExecutionId, messageOf, statusOf } from "../common";
import { type PageStatus, renderNotFound } from "./workflow-render";

/**
 * `/app/executions/<id>`: one run with its step timeline; "Retry" (a failed or cancelled run,
 * through the same service as `POST /v1/executions/{id}/retry`) and "Cancel" (an unfinished one).
 */
export const executionsPages = new Hono<AppEnv>()
  .get("/app/executions/:id", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    return renderExecution(c, signedIn, c.req.param("id"));
  })
  .post("/app/executions/:id", formGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    const id = c.req.param("id") ?? "";
    if (!isExecutionId(id)) return renderNotFound(c, signedIn, "execution");
    const step = str(form.step);
    try {
      if (step === "retry") {
        const retry = await retryExecution(signedIn.ctx, id);
        return c.redirect(`/app/executions/${retry.id}`, 303);
      }
      if (step === "cancel") {
        await cancelExecution(signedIn.ctx, id);
        return c.redirect(`/app/executions/${id}`, 303);
      }
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      if (error.code === "not_found") return renderNotFound(c, signedIn, "execution");
      return renderExecution(c, signedIn, id, messageOf(error), statusOf(error));
    }
    return renderError(c, "Unknown form action.", 400);
  });

async function renderExecution(c: Context<AppEnv>, signedIn: SignedIn, id: string, error?: string, status: PageStatus = 200) {
  const { ctx } = signedIn;
  let row: Execution;
  try {
    if (!isExecutionId(id)) return renderNotFound(c, signedIn, "execution");
    row = await getOwnedExecution(ctx, id);
  } catch (failure) {
    if (failure instanceof HubError && failure.code === "not_found") return renderNotFound(c, signedIn, "execution");
    throw failure;
  }
  const [execution, childRuns, workflowName] = await Promise.all([
    // Every step record is read (the service has no limit for them); the page shows the first
    // STEP_RECORDS_SHOWN of them and says how many more the API has.
    presentExecution(ctx.db, row, true),
    childExecutions(ctx.db, row.id),
    // The run is the person's, so its workflow is too; it may have been deleted meanwhile.
    getOwnedWorkflow(ctx, row.workflowId).then(
      (workflow) => workflow.name,
      () => undefined,
    ),
  ]);
  const csrf = await csrfToken(c, ctx.actor.id);
  return page(
    c,
    <ExecutionPage email={signedIn.email} csrf={csrf} execution={execution} childRuns={childRuns} workflowName={workflowName} error={error} />,
    status,
  );
}
