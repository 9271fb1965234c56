import type { ServiceContext } from "../../core/context";
import { HubError } from "../../core/errors";
import { resolveProvider } from "../../llm/providers";
import type { ChatMessage } from "../../llm/types";
import type { Step } from "../../workflows/steps";
import { fencedBlock } from "../../lib/fenced-block";
import { UserSchemaValidator } from "../../lib/user-json-schema";
import { BudgetExceededError } from "../../usage/budgets";
import { type UsageScope, governedProvider } from "../../usage/governed-provider";
import type { ModelUsage } from "../../usage/model-usage";

type LlmStep = Extract<Step, { type: "llm" }>;

export interface LlmAnswer {
  result: { text: string } | { json: unknown };
  tokensUsed: number;
  model: string;
  usage: ModelUsage | null;
}

/**
 * Why an llm step failed. `permanent` failures (no model provider, a provider that is not
 * configured, a model the deployment does not allow on its own key, a spent budget) fail the step at once; the
 * others (the provider refused, the answer was not the JSON asked for) are attempts that the
 * step's retry policy may repeat.
 */
export class LlmStepFailed extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
    readonly tokensUsed = 0,
    /** What the attempt's request spent, when it got an answer; and the code of a failure the API names. */
    readonly details: { usage?: ModelUsage | null; code?: "budget_exceeded" } = {},
  ) {
    super(message);
  }
}

/**
 * One model call of a workflow's llm step: the prompt (already substituted) as the user message,
 * and for `output: "json"` an instruction to answer with JSON (matching `schema` when given),
 * which is then parsed and checked. Tokens are counted whatever the outcome. The request is
 * budgeted and lands in the ledger under `scope` (the run, its workflow and agent); a spent budget
 * fails the step at once with code budget_exceeded.
 */
export async function askModel(
  ctx: ServiceContext,
  step: LlmStep,
  prompt: string,
  system: string | undefined,
  signal: AbortSignal,
  scope: UsageScope,
): Promise<LlmAnswer> {
  let resolved: Awaited<ReturnType<typeof resolveProvider>>;
  try {
    resolved = await resolveProvider(ctx, step.provider ?? null, step.model);
  } catch (error) {
    if (error instanceof HubError) throw new LlmStepFailed(error.message, true);
    throw error;
  }
  if (resolved.id === "local") {
    throw new LlmStepFailed(
      "An llm step needs a language model: connect openai or anthropic (or deploy with Workers AI) and name it as the step's provider or your default. The built-in local provider only routes tools.",
      true,
    );
  }
  const provider = governedProvider(ctx, resolved, scope);
  const messages: ChatMessage[] = [];
  const instructions = [system, step.output === "json" ? jsonInstruction(step.schema) : undefined].filter(Boolean).join("\n\n");
  if (instructions) messages.push({ role: "system", content: instructions });
  messages.push({ role: "user", content: prompt });

  let answer: Awaited<ReturnType<typeof provider.generate>>;
  try {
    answer = await provider.generate({ messages, tools: [], signal });
  } catch (error) {
    if (signal.aborted) throw error;
    if (error instanceof BudgetExceededError) throw new LlmStepFailed(error.message, true, 0, { code: "budget_exceeded" });
    // Over the deployment's model-call limit: the runner waits for the window, no attempt spent.
    if (error instanceof HubError && error.code === "rate_limited") throw error;
    throw new LlmStepFailed(`The model call failed: ${error instanceof Error ? error.message : String(error)}`, false);
  }
  const tokensUsed = answer.usage.inputTokens + answer.usage.outputTokens;
  const usage = provider.usage();
  if (step.output === "text") return { result: { text: answer.text }, tokensUsed, model: answer.model, usage };

  const parsed = parseJson(answer.text);
  if (parsed === undefined) throw new LlmStepFailed("The model did not answer with JSON.", false, tokensUsed, { usage });
  if (step.schema) {
    const check = new UserSchemaValidator(step.schema).validate(parsed);
    if (!check.valid) {
      const reasons = check.errors.map((e) => `${e.instanceLocation.replace(/^#/, "") || "/"}: ${e.error}`).slice(0, 5);
      throw new LlmStepFailed(`The model's JSON does not match the schema (${reasons.join("; ")}).`, false, tokensUsed, { usage });
    }
  }
  return { result: { json: parsed }, tokensUsed, model: answer.model, usage };
}

function jsonInstruction(schema: Record<string, unknown> | undefined): string {
  return schema
    ? `Answer with only a JSON value that matches this JSON Schema, and nothing else:\n${JSON.stringify(schema)}`
    : "Answer with only a JSON value, and nothing else.";
}

/** The JSON in a model's answer: the whole text, or the inside of a ``` fence around it. */
function parseJson(text: string): unknown {
  const trimmed = text.trim();
  const fenced = trimmed.startsWith("```") && trimmed.endsWith("```") ? fencedBlock(trimmed) : undefined;
  try {
    return JSON.parse(fenced ?? text);
  } catch {
    return undefined;
  }
}
