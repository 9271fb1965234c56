import type { AccountBudget } from "../../usage/account-budget";
import { formatCount, formatUsd } from "../../usage/money";
import type { UsageAmounts, UsageReport } from "../../usage/report";
import { DataTable, Fact } from "../common";
import { ErrorNote, Page } from "../layout";
import { CHART_STYLE, CostChart, type DayCost } from "./cost-chart";

export interface UsageView {
  totals: UsageAmounts;
  days: DayCost[];
  byModel: UsageReport["data"];
  /** By agent, each with the name of its workflow (null: requests of no agent). */
  byAgent: (UsageReport["data"][number] & { name: string | null })[];
  budget: AccountBudget;
  /** What the budget counts now: this UTC month's cost and today's tokens. */
  spent: { monthUsd: number; todayTokens: number };
}

const amountColumns = [
  { label: "Model calls", cell: (row: UsageAmounts) => formatCount(row.model_calls) },
  { label: "Input tokens", cell: (row: UsageAmounts) => formatCount(row.input_tokens) },
  { label: "Output tokens", cell: (row: UsageAmounts) => formatCount(row.output_tokens) },
  { label: "Cost", cell: (row: UsageAmounts) => formatUsd(row.cost_usd) },
];

/**
 * `/app/usage`: what the person's model requests spent in the last 30 days (totals, a bar per
 * day, by model and by agent) and the account's budget, which a form sets.
 */
export function UsagePage(props: { email: string; csrf: string; view: UsageView; error?: string; values?: Record<string, string> }) {
  const { view } = props;
  const budgetValue = (name: keyof AccountBudget) => props.values?.[name] ?? (view.budget[name] === null ? "" : String(view.budget[name]));
  return (
    <Page title="Usage" email={props.email} csrf={props.csrf} style={CHART_STYLE}>
      <h1>Usage</h1>
      <p>What your model requests (chats, workflow steps, builders) spent in the last 30 days, as the providers reported it. Days are UTC.</p>
      <section class="card" aria-labelledby="usage-totals">
        <h2 id="usage-totals">Last 30 days</h2>
        <dl class="facts">
          <Fact term="Cost">{formatUsd(view.totals.cost_usd)}</Fact>
          <Fact term="Model calls">{formatCount(view.totals.model_calls)}</Fact>
          <Fact term="Input tokens">{formatCount(view.totals.input_tokens)}</Fact>
          <Fact term="Output tokens">{formatCount(view.totals.output_tokens)}</Fact>
        </dl>
        <CostChart days={view.days} />
        <details>
          <summary>Cost per day as a table</summary>
          <DataTable
            caption="Cost per day"
            captionHidden
            rows={view.days.filter((d) => d.cost_usd > 0)}
            columns={[
              { label: "Day", cell: (d) => d.day },
              { label: "Cost", cell: (d) => formatUsd(d.cost_usd) },
            ]}
          />
        </details>
      </section>
      <section class="card" aria-labelledby="usage-models">
        <h2 id="usage-models">By model</h2>
        {view.byModel.length === 0 ? (
          <p>No model requests yet.</p>
        ) : (
          <DataTable
            caption="Usage by model"
            captionHidden
            rows={view.byModel}
            columns={[{ label: "Model", cell: (row) => <code>{row.key}</code> }, ...amountColumns]}
          />
        )}
      </section>
      <section class="card" aria-labelledby="usage-agents">
        <h2 id="usage-agents">By agent</h2>
        {view.byAgent.length === 0 ? (
          <p>No model requests yet.</p>
        ) : (
          <DataTable
            caption="Usage by agent"
            captionHidden
            rows={view.byAgent}
            columns={[
              {
                label: "Agent",
                cell: (row) => (row.key === null ? "No agent (your own chats and runs)" : <a href={`/app/agents/${row.key}`}>{row.name ?? row.key}</a>),
              },
              ...amountColumns,
            ]}
          />
        )}
      </section>
      <section class="card" aria-labelledby="usage-budget">
        <h2 id="usage-budget">Account budget</h2>
        <p>
          Before each model request, what the account spent this month and used today is checked against these: once one is reached, chats end with "budget
          exceeded" and workflow steps fail, until the next month or day (UTC) or until you raise it. Leave a field empty for no limit.
        </p>
        <dl class="facts">
          <Fact term="Spent this month">{formatUsd(view.spent.monthUsd)}</Fact>
          <Fact term="Tokens today">{formatCount(view.spent.todayTokens)}</Fact>
        </dl>
        <ErrorNote message={props.error} />
        <form method="post" action="/app/usage">
          <input type="hidden" name="csrf_token" value={props.csrf} />
          <label for="budget-usd">Most to spend in a month (US dollars)</label>
          <input id="budget-usd" type="number" name="max_usd_per_month" min="0" step="any" value={budgetValue("max_usd_per_month")} />
          <label for="budget-tokens">Most tokens in a day</label>
          <input id="budget-tokens" type="number" name="max_tokens_per_day" min="1" step="1" value={budgetValue("max_tokens_per_day")} />
          <button type="submit" name="step" value="budget">
            Save budget
          </button>
        </form>
      </section>
    </Page>
  );
}
