import type { Context } from "hono";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { getOwnedWorkflow } from "../../workflows/service";
import { testStep } from "../../executions/test-step";
import { messageOf, parseJsonField, statusOf } from "../common";
import type { SignedIn } from "../kit";
import { codeStepIds, findEnteredStep, type StepTestView } from "./step-test";
import type { WorkflowDraft } from "./workflow-editor";
import { parseStepsJson } from "./workflow-fields";
import { renderWorkflow } from "./workflow-render";

/** The bound on a step id as typed (the API's StepId is shorter). */
const MAX_STEP_ID = 100;

/**
 * "Run this step" on a workflow's page: one step of the steps as typed in the editor (a code step
 * when only one is named), run by the same service as `POST /v1/workflows/test-step` (same
 * sandbox, limits and tool-call charge).
 * The page comes back with the editor as it was typed and the outcome under the button; the
 * workflow is not saved. Only the person's own workflow's page can do this.
 */
export async function testStepOnPage(c: Context<AppEnv>, signedIn: SignedIn, workflowId: number, draft: WorkflowDraft, stepIdText: string, inputText: string) {
  await getOwnedWorkflow(signedIn.ctx, workflowId);
  const shown = { stepId: stepIdText.trim().slice(0, MAX_STEP_ID), input: inputText };
  const show = (test: StepTestView, status: 200 | ReturnType<typeof statusOf> = 200) =>
    renderWorkflow(c, signedIn, workflowId, { draft, stepTest: test }, status);

  const steps = parseStepsJson(draft.steps);
  if (!steps.ok) return show({ ...shown, error: steps.message }, 422);
  const ids = codeStepIds(steps.value);
  const stepId = shown.stepId || (ids.length === 1 ? ids[0]! : "");
  if (!stepId) return show({ ...shown, error: ids.length ? `Name the code step to run: ${ids.join(", ")}.` : "The steps have no code step to run." }, 422);
  const step = findEnteredStep(steps.value, stepId);
  if (!step) return show({ ...shown, stepId, error: `No step "${stepId}" in the steps above.` }, 422);
  let input: unknown;
  if (inputText.trim()) {
    const parsed = parseJsonField(inputText, "The step input");
    if (!parsed.ok) return show({ ...shown, stepId, error: parsed.message }, 422);
    input = parsed.value;
  }
  try {
    const { outcome } = await testStep(signedIn.ctx, step, { input });
    return show({ ...shown, stepId, outcome });
  } catch (error) {
    if (!(error instanceof HubError)) throw error;
    return show({ ...shown, stepId, error: messageOf(error) }, statusOf(error));
  }
}
