import { checkApprovalChannels } from "../approvals/channels/check";
import type { ServiceContext } from "../core/context";
import { validationFailed, type FieldError } from "../core/errors";
import { MAX_CONTEXT_CHARS, MIN_CONTEXT_CHARS } from "../agent-loop/compaction";
import { MAX_STEPS_LIMIT } from "../agent-loop/settings";
import { catalogFor } from "../tools/catalog-service";
import { checkAgentGovernance } from "../governance/check";
import { agentBudgetErrors } from "../usage/agent-budget";
import { checkAgentGoal } from "../executions/goal";

/** Bounds of the agent loop's settings in agent_config (DESIGN §6.1). */
const LOOP_SETTINGS = {
  max_steps: { min: 1, max: MAX_STEPS_LIMIT },
  context_chars: { min: MIN_CONTEXT_CHARS, max: MAX_CONTEXT_CHARS },
} as const;

/**
 * Checks what the hub reads of an agent_config: the loop's settings are whole numbers within
 * their bounds, `budget` holds only known budgets of positive amounts, and `tools` names only
 * tools the caller's catalog knows (a typo would otherwise silently leave the agent without the
 * tool; a tool of a platform not connected yet is known: connecting it later makes it usable).
 */
export async function checkAgentConfig(ctx: ServiceContext, config: Record<string, unknown>, field = "agent_config"): Promise<void> {
  for (const [name, { min, max }] of Object.entries(LOOP_SETTINGS)) {
    const value = config[name];
    if (value !== undefined && (!Number.isInteger(value) || (value as number) < min || (value as number) > max))
      throw validationFailed([{ location: "body", field: `${field}.${name}`, message: `A whole number from ${min} to ${max}.` }]);
  }
  // A budget that is not what it seems (a typo'd key, a negative amount) would never stop anything.
  const budgetErrors = agentBudgetErrors(config.budget, `${field}.budget`);
  if (budgetErrors.length) throw validationFailed(budgetErrors, "agent_config.budget is not valid.");
  checkAgentGovernance(config, field);
  checkAgentGoal(config, field);
  await checkApprovalChannels(ctx, config, field);
  const tools = config.tools;
  if (tools === undefined) return;
  if (!Array.isArray(tools)) throw validationFailed([{ location: "body", field: `${field}.tools`, message: "A list of tool names." }]);
  const known = new Set((await catalogFor(ctx, { includeAll: true, all: true })).map((tool) => tool.name));
  const errors: FieldError[] = [];
  tools.forEach((name, i) => {
    if (typeof name !== "string" || !known.has(name)) {
      errors.push({
        location: "body",
        field: `${field}.tools.${i}`,
        message: `No tool is named "${String(name).slice(0, 200)}" (GET /v1/tools?all=true lists them).`,
      });
    }
  });
  if (errors.length) throw validationFailed(errors, "agent_config.tools names tools that do not exist.");
}
