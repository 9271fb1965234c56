import { and, eq, isNull, sql } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { agents, executions, type Execution, type ExecutionStep } from "../db/schema";
import { agentSettingsOf } from "../llm/agent-config";
import { resolveProvider } from "../llm/providers";
import { fencedBlock } from "../lib/fenced-block";
import { loggableError } from "../lib/safe-log";
import { UserSchemaValidator } from "../lib/user-json-schema";
import { agentBudgetOf } from "../usage/agent-budget";
import { governedProvider } from "../usage/governed-provider";
import { type Step, findStep } from "../workflows/steps";
import type { FinalState } from "./follow-ups";
import { type AgentGoal, agentGoalOf } from "./goal";

export interface Verdict {
  verdict: "goal_met" | "goal_not_met";
  reason: string;
}

/**
 * What a run's end decides about its agent's goal (DESIGN §6.3 Goals): a verdict at once, or,
 * when only the judge is left to ask, the request to make after the end is written.
 */
export type EndVerdict = { settled: Verdict } | { judge: () => Promise<void> };

/** The most of the final output the judge is shown. */
const MAX_JUDGED_CHARS = 8_000;

/**
 * The verdict of a run of agent `execution.agentId` as it ends, or undefined when the agent has
 * no goal (or the run has no agent). The checks that need no model come first, in order: the run
 * succeeded, every tool of `success.tools_called` was called successfully somewhere in the run
 * (its `tool` steps, for_each items included, and its `agent` steps' tool_calls), the final output
 * matches `success.output_schema`. The judge is asked only when they all pass.
 */
export async function verdictAtEnd(ctx: ServiceContext, execution: Execution, final: FinalState, steps: ExecutionStep[]): Promise<EndVerdict | undefined> {
  if (!execution.agentId) return undefined;
  const row = await ctx.db
    .select({ config: agents.config })
    .from(agents)
    .where(and(eq(agents.id, execution.agentId), eq(agents.userId, execution.userId)))
    .get();
  const goal = agentGoalOf(row?.config);
  if (!goal || !row) return undefined;
  if (final.status === "failed") return { settled: notMet(`The run failed: ${final.errorMessage}`) };
  const problems: string[] = [];
  const called = toolsCalled(steps, execution.steps as Step[]);
  const missing = (goal.success.tools_called ?? []).filter((name) => !called.has(name));
  if (missing.length) problems.push(`Not called successfully: ${missing.join(", ")}.`);
  const output = finalOutputOf(steps);
  if (goal.success.output_schema) {
    const check = output ? new UserSchemaValidator(goal.success.output_schema).validate(output.value) : undefined;
    if (!check) problems.push("The run has no final output to check against success.output_schema.");
    else if (!check.valid)
      problems.push(
        `The final output does not match success.output_schema: ${check.errors
          .slice(0, 5)
          .map((e) => `${e.instanceLocation}: ${e.error}`)
          .join("; ")}.`,
      );
  }
  if (problems.length) return { settled: notMet(problems.join(" ")) };
  const passed = passedChecks(goal);
  if (!goal.success.judge) return { settled: { verdict: "goal_met", reason: passed } };
  return {
    judge: async () => {
      const judged = await askJudge(ctx, execution, row.config, goal, output?.value ?? null);
      await recordJudgedVerdict(ctx, execution, judged.verdict === "goal_met" ? { ...judged, reason: `${passed} ${judged.reason}` } : judged);
    },
  };
}

const notMet = (reason: string): Verdict => ({ verdict: "goal_not_met", reason });

function passedChecks(goal: AgentGoal): string {
  const tools = goal.success.tools_called ?? [];
  return [
    "The run succeeded.",
    tools.length ? `It called ${tools.join(", ")}.` : "",
    goal.success.output_schema ? "Its final output matches success.output_schema." : "",
  ]
    .filter(Boolean)
    .join(" ");
}

/** The tools a run called successfully: its succeeded `tool` steps and its `agent` steps' successful calls. */
export function toolsCalled(steps: ExecutionStep[], workflowSteps: Step[]): Set<string> {
  const names = new Set<string>();
  for (const step of steps) {
    if (step.status !== "succeeded") continue;
    if (step.type === "tool") {
      const definition = findStep(workflowSteps, step.stepId);
      if (definition?.type === "tool") names.add(definition.tool);
    } else if (step.type === "agent") {
      const calls = (step.result as { tool_calls?: { name?: unknown; success?: unknown }[] } | null)?.tool_calls ?? [];
      for (const call of calls) if (call.success === true && typeof call.name === "string") names.add(call.name);
    }
  }
  return names;
}

/**
 * A run's final output: the result of its last succeeded step outside for_each items (by the order
 * steps ran). For an `agent` step, its `output` when it has one (output_schema), else its `text`
 * read as JSON (bare or fenced), else that text as a string.
 */
export function finalOutputOf(steps: ExecutionStep[]): { value: unknown } | undefined {
  const last = steps
    .filter((step) => step.status === "succeeded" && step.stepKey === step.stepId)
    .sort((a, b) => a.position - b.position)
    .at(-1);
  if (!last) return undefined;
  if (last.type !== "agent") return { value: last.result ?? null };
  const result = (last.result ?? {}) as { text?: unknown; output?: unknown };
  if ("output" in result) return { value: result.output };
  const text = typeof result.text === "string" ? result.text : "";
  try {
    return { value: JSON.parse(fencedBlock(text) ?? text) };
  } catch {
    return { value: text };
  }
}

const JUDGE_SYSTEM =
  'You judge whether an automated run of an agent achieved its goal, from the run\'s final result. Answer with only JSON: {"achieved": true or false, "reason": "one or two sentences"}.';

/**
 * One request to the agent's provider (its model, metered and budgeted under the run and the
 * agent) asking whether the run achieved the goal's description. A request that fails or an
 * answer that is not the JSON asked for is a verdict of goal_not_met saying the judge could not answer.
 */
async function askJudge(ctx: ServiceContext, execution: Execution, config: Record<string, unknown>, goal: AgentGoal, output: unknown): Promise<Verdict> {
  const couldNot = (why: string) => notMet(`The judge could not answer: ${why}`);
  try {
    const settings = agentSettingsOf(config);
    const provider = governedProvider(ctx, await resolveProvider(ctx, settings.provider ?? null, settings.model), {
      executionId: execution.id,
      workflowId: execution.workflowId,
      agentId: execution.agentId,
      budget: agentBudgetOf(config),
    });
    const shown = JSON.stringify(output ?? null).slice(0, MAX_JUDGED_CHARS);
    const answer = await provider.generate({
      messages: [
        { role: "system", content: JUDGE_SYSTEM },
        { role: "user", content: `Goal: ${goal.description}\n\nThe run's final result:\n${shown}\n\nDid this run achieve the goal?` },
      ],
      tools: [],
      output: {
        name: "verdict",
        schema: { type: "object", properties: { achieved: { type: "boolean" }, reason: { type: "string" } }, required: ["achieved", "reason"] },
      },
      signal: AbortSignal.timeout(60_000),
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(fencedBlock(answer.text) ?? answer.text);
    } catch {
      return couldNot("its answer was not JSON.");
    }
    const { achieved, reason } = (parsed ?? {}) as { achieved?: unknown; reason?: unknown };
    if (typeof achieved !== "boolean") return couldNot('its answer had no "achieved" true or false.');
    const said = typeof reason === "string" && reason.trim() ? reason.trim().slice(0, 1_000) : "no reason given.";
    return achieved ? { verdict: "goal_met", reason: `The judge: ${said}` } : notMet(`The judge: ${said}`);
  } catch (error) {
    return couldNot(error instanceof Error ? error.message.slice(0, 500) : "the request failed.");
  }
}

/**
 * Writes a judged verdict once: the run's verdict is set only while it has none, and a met goal
 * counts into the agent's success_count in the same batch, only if that verdict was still unset.
 */
async function recordJudgedVerdict(ctx: ServiceContext, execution: Execution, verdict: Verdict): Promise<void> {
  const unjudged = sql`exists (select 1 from executions where id = ${execution.id} and verdict is null)`;
  const setVerdict = ctx.db
    .update(executions)
    .set({ verdict: verdict.verdict, verdictReason: verdict.reason })
    .where(and(eq(executions.id, execution.id), isNull(executions.verdict)));
  try {
    // A test run gets its verdict, but counts in no agent's success_count (DESIGN §6.5).
    if (verdict.verdict === "goal_met" && execution.agentId && execution.mode !== "test")
      await ctx.db.batch([
        ctx.db
          .update(agents)
          .set({ successCount: sql`${agents.successCount} + 1` })
          .where(and(eq(agents.id, execution.agentId), unjudged)),
        setVerdict,
      ]);
    else await setVerdict;
  } catch (error) {
    console.error(JSON.stringify({ level: "error", message: "run verdict not recorded", execution_id: execution.id, error: loggableError(error) }));
  }
}
