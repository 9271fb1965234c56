import { refusal, runAgentLoop } from "../agent-loop/loop";
import type { CallRunner } from "../agent-loop/types";
import { SEARCH_TOOLS, catalogToolChoice, conversationSoFar } from "../agent-loop/tools";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import type { AgentStepConfig } from "../executions/steps/agent-step-config";
import { type PolicyRule, decidePolicy } from "../governance/policies";
import { toolRefusal } from "../llm/agent-config";
import { type ChatMessage, type ChatProvider, ProviderError } from "../llm/types";
import type { EvalCase, EvalCaseResult } from "./schemas";
import { caseFailures } from "./verdict";

/**
 * One case: the agent's model works through the case's input with the agent's tools offered as
 * in a chat turn, and every call it makes is decided by the agent's and the account's policies
 * and then answered from the case's mocks (an unmocked tool answers `{mocked: false}`): nothing
 * outside is called, no approval is stored. The trajectory and the final answer are then
 * compared with what the case expects.
 */
export async function runCase(
  ctx: ServiceContext,
  input: { config: AgentStepConfig; provider: ChatProvider; accountRules: PolicyRule[]; testCase: EvalCase; index: number; deadline: AbortSignal },
): Promise<EvalCaseResult> {
  const { config, testCase } = input;
  const name = testCase.name ?? `case ${input.index + 1}`;
  const prompt = typeof testCase.input === "string" ? testCase.input : JSON.stringify(testCase.input);
  const messages: ChatMessage[] = [
    { role: "system", content: config.system },
    { role: "user", content: prompt },
  ];
  const choice = catalogToolChoice({ catalog: config.catalog, conversation: conversationSoFar(messages), usedOrFound: [] });
  const effects = new Map(config.catalog.map((tool) => [tool.name, tool.effect]));
  const trajectory: EvalCaseResult["trajectory"] = [];
  const run: CallRunner = async (call) => {
    if (call.name === SEARCH_TOOLS) return choice.search(call.arguments);
    trajectory.push({ tool: call.name, arguments: call.arguments });
    const refused = toolRefusal(config.settings, call.name);
    if (refused) return refusal(refused);
    const effect = effects.get(call.name) ?? "write";
    const decision = decidePolicy({ tool: call.name, effect, args: call.arguments }, { agent: config.approvals.rules, account: input.accountRules });
    if (decision.action === "deny") return refusal("Refused by policy: the call was not run.");
    if (decision.action === "ask") return refusal("A person would be asked to approve this call; in an eval it is not run.");
    const mocked = testCase.mocks && Object.hasOwn(testCase.mocks, call.name) ? testCase.mocks[call.name] : { mocked: false };
    return { content: JSON.stringify(mocked ?? null), success: true, error_message: null, duration_ms: 0, call_id: null };
  };
  try {
    const outcome = await runAgentLoop({
      provider: input.provider,
      messages,
      offer: choice.offer,
      run,
      maxSteps: config.maxSteps,
      maxParallel: ctx.config.limits.parallelToolCalls,
      stop: input.deadline,
      deadline: input.deadline,
    });
    if (outcome.status === "stopped") return failed(name, trajectory, outcome.text, "The case did not finish before the eval's deadline.");
    if (outcome.status !== "completed") return failed(name, trajectory, outcome.text, outcome.text);
    const failures = caseFailures(testCase.expect, trajectory, outcome.text);
    return { name, verdict: failures.length ? "failed" : "passed", failures, trajectory, output: outcome.text };
  } catch (error) {
    // A provider failure or a spent budget fails the case, saying why; the others still run.
    if (error instanceof HubError || error instanceof ProviderError) return failed(name, trajectory, "", error.message);
    throw error;
  }
}

const failed = (name: string, trajectory: EvalCaseResult["trajectory"], output: string, why: string): EvalCaseResult => ({
  name,
  verdict: "failed",
  failures: [why],
  trajectory,
  output,
});
