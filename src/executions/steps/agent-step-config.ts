import { and, eq } from "drizzle-orm";
import { loopSettingsOf } from "../../agent-loop/settings";
import { notifyChannelsOf, type NotifyChannel } from "../../approvals/channels/schema";
import { approvalTtlSeconds } from "../../approvals/settings";
import type { ServiceContext } from "../../core/context";
import { agents } from "../../db/schema";
import { type PolicyRule, agentRulesOf, globMatches } from "../../governance/policies";
import { type AgentModelSettings, agentSettingsOf } from "../../llm/agent-config";
import { catalogFor } from "../../tools/catalog-service";
import type { ToolInfo } from "../../tools/types";
import { type AgentBudget, agentBudgetOf } from "../../usage/agent-budget";
import type { AgentStep } from "../../workflows/steps";

/** The system prompt of every `agent` step, before the agent's and the step's instructions. */
const AGENT_STEP_PROMPT =
  "You are an autonomous agent of the Agent Automation Hub working through a task inside an automated run; no person reads your answer as it is written. Call the tools you are given to do the task; tools that do not depend on each other can be called together. When the task is done, answer with the result.";

export interface AgentStepConfig {
  provider?: string;
  model?: string;
  system: string;
  /** The tools the step may use: the step's names or globs, within the agent's `tools`. */
  catalog: ToolInfo[];
  settings: AgentModelSettings;
  maxSteps: number;
  budget?: AgentBudget;
  memory: boolean;
  outputSchema?: Record<string, unknown>;
  approvals: { rules: PolicyRule[]; ttlSeconds: number; notify: NotifyChannel[] };
}

/**
 * The step as its run's agent runs it (DESIGN §6.3): the step's own settings win, the agent's
 * `agent_config` fills in the rest; the step's policy rules come before the agent's; its budget's
 * fields override the agent's one by one. A run of no agent has only the step's.
 */
export async function agentStepConfig(
  ctx: ServiceContext,
  step: AgentStep,
  agentId: string | null,
  /** Every platform's tools, connected or not (an eval answers them from mocks). */
  options: { allPlatforms?: boolean } = {},
): Promise<AgentStepConfig> {
  const catalog = catalogFor(ctx, options.allPlatforms ? { all: true, includeAll: true } : {});
  catalog.catch(() => undefined);
  const row = agentId
    ? await ctx.db
        .select({ config: agents.config })
        .from(agents)
        .where(and(eq(agents.id, agentId), eq(agents.userId, ctx.workspace.id)))
        .get()
    : undefined;
  const config = row?.config ?? null;
  const settings = agentSettingsOf(config);
  // A model belongs to its provider: the agent's model only goes with the agent's provider.
  const provider = step.provider ?? settings.provider;
  const model = step.model ?? (step.provider === undefined || step.provider === settings.provider ? settings.model : undefined);
  // In an eval every tool is offered as if connected: its mock answers it.
  const tools = options.allPlatforms ? (await catalog).map((tool) => ({ ...tool, available: true })) : await catalog;
  const allowed = tools.filter(
    (tool) => (!settings.tools || settings.tools.includes(tool.name)) && (!step.tools || step.tools.some((glob) => globMatches(glob, tool.name))),
  );
  const budget = { ...agentBudgetOf(config), ...(step.budget as AgentBudget | undefined) };
  return {
    provider,
    model,
    system: [AGENT_STEP_PROMPT, settings.instructions, step.instructions].filter(Boolean).join("\n\n"),
    catalog: allowed,
    // The step's tools bound what may be called as well as what is offered.
    settings: { ...settings, tools: allowed.map((tool) => tool.name) },
    maxSteps: step.max_steps ?? loopSettingsOf(config).maxSteps,
    budget: Object.keys(budget).length > 0 ? budget : undefined,
    memory: step.memory ?? config?.memory === true,
    outputSchema: step.output_schema,
    approvals: { rules: [...(step.tool_policies ?? []), ...agentRulesOf(config)], ttlSeconds: approvalTtlSeconds(config), notify: notifyChannelsOf(config) },
  };
}
