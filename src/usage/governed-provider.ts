import type { ServiceContext } from "../core/context";
import type { ChatProvider } from "../llm/types";
import { type AccountBudget, readAccountBudget } from "./account-budget";
import type { AgentBudget } from "./agent-budget";
import { BudgetExceededError, checkBudgets } from "./budgets";
import { type LedgerEntry, recordUsage } from "./ledger";
import { type ModelUsage, emptyTally, presentTally } from "./model-usage";
import { costNanoUsd, priceOf } from "./prices";

/** What the requests of one governed provider belong to: the ledger's columns and the agent's budget. */
export interface UsageScope {
  agentId?: string | null;
  conversationId?: number | null;
  executionId?: string | null;
  workflowId?: number | null;
  budget?: AgentBudget;
  /**
   * What the same turn spent before this wrapper (a turn that waited for approvals and goes on):
   * counted against max_tokens_per_turn, not in this wrapper's own usage.
   */
  turnSpentBefore?: { tokens: number; nanoUsd: number };
  /**
   * Takes each answer's ledger row instead of it being written before `generate` returns: the
   * caller writes it in the same batch as what records the answer (a run's checkpoint), before
   * its next request, so that request's budget check counts it.
   */
  ledger?: (entry: LedgerEntry) => void;
}

export interface GovernedProvider extends ChatProvider {
  /** What this provider's requests spent so far (a turn's, a step attempt's); null before any answer. */
  usage(): ModelUsage | null;
}

/**
 * The one place that decides whether another model request may be made (DESIGN §6.2 Budgets) and
 * that meters it: before each request the budgets are checked (a spent one throws
 * BudgetExceededError and nothing is sent); after each answer its usage is priced and written to
 * the ledger before the next check, so that it counts it. One wrapper is one turn or one step
 * attempt: its own tally is the turn's spending for max_tokens_per_turn.
 */
export function governedProvider(ctx: ServiceContext, provider: ChatProvider, scope: UsageScope): GovernedProvider {
  // Read ahead: the first request's check need not wait for it.
  const account: Promise<AccountBudget> = readAccountBudget(ctx);
  account.catch(() => undefined);
  const tally = emptyTally();
  return {
    ...provider,
    async generate(request) {
      const before = scope.turnSpentBefore ?? { tokens: 0, nanoUsd: 0 };
      const turn = { tokens: before.tokens + tally.inputTokens + tally.outputTokens, nanoUsd: before.nanoUsd + tally.nanoUsd };
      const exceeded = await checkBudgets(ctx, scope, turn, await account);
      if (exceeded) throw new BudgetExceededError(exceeded);
      const answer = await provider.generate(request);
      const cost = costNanoUsd(priceOf(answer.model, ctx.config.modelPrices), answer.usage);
      tally.inputTokens += answer.usage.inputTokens;
      tally.outputTokens += answer.usage.outputTokens;
      tally.nanoUsd += cost;
      tally.model = answer.model;
      const entry: LedgerEntry = {
        agentId: scope.agentId ?? null,
        conversationId: scope.conversationId ?? null,
        executionId: scope.executionId ?? null,
        workflowId: scope.workflowId ?? null,
        provider: provider.id,
        model: answer.model,
        inputTokens: answer.usage.inputTokens,
        outputTokens: answer.usage.outputTokens,
        costNanoUsd: cost,
      };
      if (scope.ledger) scope.ledger(entry);
      else await recordUsage(ctx, entry);
      return answer;
    },
    usage: () => presentTally(tally),
  };
}
