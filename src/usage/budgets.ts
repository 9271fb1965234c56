import type { ServiceContext } from "../core/context";
import { recordAlertEvent } from "../core/alert-events";
import { HubError } from "../core/errors";
import type { AccountBudget } from "./account-budget";
import type { AgentBudget } from "./agent-budget";
import { type Spent, spentByAccountSince, spentByAgentSince, spentByRun, utcDayStart, utcMonthStart } from "./ledger";
import { formatCount, formatUsd, nanoUsdOf, usdOf } from "./money";

/** A model request refused before it was made: a budget is spent. Its message names the budget. */
export class BudgetExceededError extends HubError {
  constructor(message: string) {
    super("budget_exceeded", message);
  }
}

/** What a budget check is about: the turn's own spending so far, and what the run and agent are. */
export interface BudgetScope {
  agentId?: string | null;
  executionId?: string | null;
  budget?: AgentBudget;
}

/** One budget and how to say it is reached. */
interface Limit {
  name: string;
  max: number;
  spent: number;
  /** "this turn used 2,150 tokens" */
  what: (spent: number) => string;
  money: boolean;
}

/**
 * Whether another model request may be made: the message of the first budget that what has been
 * spent has reached (the turn's, the run's, the agent's today, the account's today and this
 * month, in that order), or null. Only budgets that are set are read from the ledger, together.
 * A reached budget is recorded for the account's alerts before the answer.
 */
export async function checkBudgets(ctx: ServiceContext, scope: BudgetScope, turn: Spent, account: AccountBudget): Promise<string | null> {
  const budget = scope.budget ?? {};
  const now = new Date();
  const none = Promise.resolve(undefined);
  const runBudget = scope.executionId && (budget.max_tokens_per_run !== undefined || budget.max_usd_per_run !== undefined);
  const [run, agentToday, accountToday, accountMonth] = await Promise.all([
    runBudget ? spentByRun(ctx, scope.executionId!) : none,
    scope.agentId && budget.max_usd_per_day !== undefined ? spentByAgentSince(ctx, scope.agentId, utcDayStart(now)) : none,
    account.max_tokens_per_day !== null ? spentByAccountSince(ctx, utcDayStart(now)) : none,
    account.max_usd_per_month !== null ? spentByAccountSince(ctx, utcMonthStart(now)) : none,
  ]);
  const agentBudget = (key: keyof AgentBudget) => `agent_config.budget.${key}`;
  const limits: (Limit | undefined)[] = [
    budget.max_tokens_per_turn === undefined
      ? undefined
      : {
          name: agentBudget("max_tokens_per_turn"),
          max: budget.max_tokens_per_turn,
          spent: turn.tokens,
          what: (n) => `this turn used ${formatCount(n)} tokens`,
          money: false,
        },
    run && budget.max_tokens_per_run !== undefined
      ? {
          name: agentBudget("max_tokens_per_run"),
          max: budget.max_tokens_per_run,
          spent: run.tokens,
          what: (n) => `this run used ${formatCount(n)} tokens`,
          money: false,
        }
      : undefined,
    run && budget.max_usd_per_run !== undefined
      ? {
          name: agentBudget("max_usd_per_run"),
          max: budget.max_usd_per_run,
          spent: run.nanoUsd,
          what: (n) => `this run spent ${formatUsd(usdOf(n))}`,
          money: true,
        }
      : undefined,
    agentToday && budget.max_usd_per_day !== undefined
      ? {
          name: agentBudget("max_usd_per_day"),
          max: budget.max_usd_per_day,
          spent: agentToday.nanoUsd,
          what: (n) => `this agent spent ${formatUsd(usdOf(n))} today (UTC)`,
          money: true,
        }
      : undefined,
    accountToday && account.max_tokens_per_day !== null
      ? {
          name: "The account's budget max_tokens_per_day",
          max: account.max_tokens_per_day,
          spent: accountToday.tokens,
          what: (n) => `the account used ${formatCount(n)} tokens today (UTC)`,
          money: false,
        }
      : undefined,
    accountMonth && account.max_usd_per_month !== null
      ? {
          name: "The account's budget max_usd_per_month",
          max: account.max_usd_per_month,
          spent: accountMonth.nanoUsd,
          what: (n) => `the account spent ${formatUsd(usdOf(n))} this month (UTC)`,
          money: true,
        }
      : undefined,
  ];
  // Dollars are compared in nano-dollars, as the ledger keeps them: no rounding decides a refusal.
  const reached = limits.find((limit) => limit && limit.spent >= (limit.money ? nanoUsdOf(limit.max) : limit.max));
  if (!reached) return null;
  const max = reached.money ? formatUsd(reached.max) : formatCount(reached.max);
  const message = `${reached.name} (${max}) reached: ${reached.what(reached.spent)}.`;
  // The request is refused: the owner's alerts (DESIGN §6.5) hear of it, repeats folded per budget and agent.
  const where = [scope.agentId ? `Agent ${scope.agentId}` : "", scope.executionId ? `run ${scope.executionId}` : ""].filter(Boolean).join(", ");
  await recordAlertEvent(ctx.db, {
    userId: ctx.workspace.id,
    kind: "budget_exceeded",
    subject: scope.agentId ? `agent ${scope.agentId}: ${reached.name}` : reached.name,
    summary: where ? `${message} (${where})` : message,
  });
  return message;
}
