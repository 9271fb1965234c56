import { and, eq } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { notFound, validationFailed } from "../core/errors";
import { agentEvals } from "../db/schema";
import { getOwnedAgent } from "../agents/service";
import { agentStepConfig } from "../executions/steps/agent-step-config";
import { accountRules } from "../governance/account-policies";
import { randomToken } from "../lib/crypto";
import { schemaProblems } from "../lib/user-json-schema";
import { resolveProvider } from "../llm/providers";
import { governedProvider } from "../usage/governed-provider";
import { runCase } from "./run-case";
import type { EvalCase, EvalCaseResult } from "./schemas";

/** Cases run at once. */
const CASES_AT_ONCE = 4;
/** One eval's cases share this deadline: a case still running then fails, saying so. */
const EVAL_MS = 5 * 60_000;

export interface EvalView {
  id: string;
  agent_id: string;
  passed: number;
  failed: number;
  cases: EvalCaseResult[];
  created_at: string;
}

/**
 * Runs an agent's eval (DESIGN §6.3): each case with the agent's model, instructions, tools and
 * policies, tools answered from the case's mocks, a few cases at once; every model request is
 * metered and budgeted as the agent's. Stored, to be read again.
 */
export async function runEval(ctx: ServiceContext, agentId: string, cases: EvalCase[]): Promise<EvalView> {
  const agent = await getOwnedAgent(ctx, agentId);
  cases.forEach((testCase, i) => {
    const [problem] = testCase.expect.output_schema ? schemaProblems(testCase.expect.output_schema) : [];
    if (problem)
      throw validationFailed([{ location: "body", field: `cases.${i}.expect.output_schema`, message: `${problem.pointer || "/"}: ${problem.message}` }]);
  });
  // Every platform's tools: the mocks answer them, so none needs a connection here.
  const config = await agentStepConfig(ctx, { id: "eval", type: "agent", prompt: "eval" }, agent.id, { allPlatforms: true });
  const provider = governedProvider(ctx, await resolveProvider(ctx, config.provider ?? null, config.model), { agentId: agent.id, budget: config.budget });
  const rules = await accountRules(ctx);
  const deadline = AbortSignal.timeout(EVAL_MS);
  const results: EvalCaseResult[] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < cases.length; i = next++)
      results[i] = await runCase(ctx, { config, provider, accountRules: rules, testCase: cases[i]!, index: i, deadline });
  };
  await Promise.all(Array.from({ length: Math.min(CASES_AT_ONCE, cases.length) }, worker));
  const passed = results.filter((r) => r.verdict === "passed").length;
  const id = `evl_${randomToken(12)}`;
  const result = { passed, failed: results.length - passed, cases: results };
  const [row] = await ctx.db.insert(agentEvals).values({ id, agentId: agent.id, userId: ctx.workspace.id, result }).returning();
  return { id, agent_id: agent.id, ...result, created_at: row!.createdAt.toISOString() };
}

export async function getEval(ctx: ServiceContext, agentId: string, evalId: string): Promise<EvalView> {
  const row = await ctx.db
    .select()
    .from(agentEvals)
    .where(and(eq(agentEvals.id, evalId), eq(agentEvals.agentId, agentId), eq(agentEvals.userId, ctx.workspace.id)))
    .get();
  if (!row) throw notFound("Eval");
  const result = row.result as Omit<EvalView, "id" | "agent_id" | "created_at">;
  return { id: row.id, agent_id: row.agentId, ...result, created_at: row.createdAt.toISOString() };
}
