import { Pause } from "../outcome";
import { bounded } from "../scope";
import { type LlmAnswer, LlmStepFailed, askModel } from "./ask-model";
import { addUsage } from "../../usage/model-usage";
import { agentStepSettings, withAgentSettings } from "./agent-settings";
import { nextAttempt, parkIfRateLimited, retryOrFail } from "./attempts";
import type { StepHandler } from "./types";

/**
 * `llm`: a model call. Its answer, tokens and usage are checkpointed: a resumed run never asks
 * again. The request is budgeted as the run's (and its agent's) and lands in the ledger.
 */
export const runLlm: StepHandler<"llm"> = async (run, step, scope, done) => {
  const { attempt, policy } = await nextAttempt(run, step, scope, done);
  await run.stopIfRevoked(step, scope);
  const prompt = run.evaluate(step, () => asText(run.substitute(step.prompt, scope.context)));
  const system = step.system === undefined ? undefined : run.evaluate(step, () => asText(run.substitute(step.system, scope.context)));
  await run.checkpoint(step, scope, { status: "running", attempts: attempt, startedAt: done?.startedAt ?? new Date() });
  // Tokens of earlier attempts stay counted.
  const spent = done?.tokensUsed ?? 0;
  let answer: LlmAnswer | undefined;
  let failure: LlmStepFailed | undefined;
  try {
    const { settings, budget } = await agentStepSettings(run.ctx, run.execution.agentId);
    const agent = withAgentSettings(step, system, settings);
    const { id: executionId, workflowId, agentId } = run.execution;
    const usageScope = { executionId, workflowId, agentId, budget };
    answer = await run.withHeartbeat((signal) => askModel(run.ctx, agent.step, prompt, agent.system, signal, usageScope));
  } catch (thrown) {
    if (thrown instanceof Pause) throw thrown;
    // Over the model-call limit on the deployment's key: a loop stops taking items meanwhile.
    await parkIfRateLimited(run, step, scope, attempt, thrown, spent);
    failure =
      thrown instanceof LlmStepFailed
        ? thrown
        : new LlmStepFailed(`The step failed unexpectedly: ${thrown instanceof Error ? thrown.message : String(thrown)}`, false);
  }
  if (answer) {
    const stored = bounded(answer.result);
    const usage = addUsage(done?.usage, answer.usage);
    await run.checkpoint(step, scope, { status: "succeeded", result: stored, attempts: attempt, tokensUsed: spent + answer.tokensUsed, usage });
    run.apply(step, scope, stored);
    return;
  }
  const tokensUsed = spent + (failure?.tokensUsed ?? 0);
  const usage = addUsage(done?.usage, failure?.details.usage);
  if (failure?.permanent) return run.failStep(step, scope, attempt, failure.message, tokensUsed, { usage, errorCode: failure.details.code });
  // An answer that did not do (not the JSON asked for) was still paid for: its usage goes on the
  // record with the retry's checkpoint, which keeps what this one holds.
  if (failure?.details.usage) await run.checkpoint(step, scope, { status: "running", attempts: attempt, tokensUsed, usage }, { deferred: true });
  return retryOrFail(run, step, scope, attempt, policy, failure?.message ?? "The model call failed.", tokensUsed);
};

/** A substituted prompt as text: strings as they are, anything else as JSON. */
function asText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}
