import type { Context } from "hono";
import { Hono } from "hono";
import { listAgents } from "../../agents/service";
import { csrfToken } from "../../auth/browser-session";
import type { ServiceContext } from "../../core/context";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { readAccountBudget, writeAccountBudget } from "../../usage/account-budget";
import { spentByAccountSince, utcDayStart, utcMonthStart } from "../../usage/ledger";
import { usdOf } from "../../usage/money";
import { usageReport } from "../../usage/report";
import { AccountBudgetChange } from "../../usage/schemas";
import { type RefusalStatus, messageOf, statusOf } from "../common";
import { type SignedIn, formGuard, page, renderError, signedInContext, signedInForm, str } from "../kit";
import { UsagePage, type UsageView } from "./usage-page";

const DAYS = 30;
const DAY_MS = 86_400_000;

/** `/app/usage`: the last 30 UTC days of the person's ledger, and their account budget (DESIGN §6.2). */
export const usagePages = new Hono<AppEnv>()
  .get("/app/usage", async (c) => {
    const signedIn = await signedInContext(c);
    if (!signedIn) return c.redirect("/", 303);
    return renderUsage(c, signedIn);
  })
  .post("/app/usage", formGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    if (str(form.step) !== "budget") return renderError(c, "Unknown form action.", 400);
    const values = { max_usd_per_month: (str(form.max_usd_per_month) ?? "").trim(), max_tokens_per_day: (str(form.max_tokens_per_day) ?? "").trim() };
    // The API's own schema decides, so the form accepts exactly what PUT /v1/me/budget would; empty is no limit.
    const parsed = AccountBudgetChange.safeParse({
      max_usd_per_month: values.max_usd_per_month ? Number(values.max_usd_per_month) : null,
      max_tokens_per_day: values.max_tokens_per_day ? Number(values.max_tokens_per_day) : null,
    });
    if (!parsed.success) {
      const fields = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0])))];
      const error = `Check ${fields.join(" and ")}: a positive amount of dollars, and a positive whole number of tokens.`;
      return renderUsage(c, signedIn, { error, values }, 422);
    }
    try {
      await writeAccountBudget(signedIn.ctx, parsed.data);
    } catch (error) {
      if (error instanceof HubError) return renderUsage(c, signedIn, { error: messageOf(error), values }, statusOf(error));
      throw error;
    }
    return c.redirect("/app/usage", 303);
  });

async function renderUsage(
  c: Context<AppEnv>,
  signedIn: SignedIn,
  extra: { error?: string; values?: Record<string, string> } = {},
  status: 200 | RefusalStatus = 200,
) {
  const [view, csrf] = await Promise.all([usageView(signedIn.ctx), csrfToken(c, signedIn.ctx.actor.id)]);
  return page(c, <UsagePage email={signedIn.email} csrf={csrf} view={view} {...extra} />, status);
}

/** Everything the page shows, read together. */
async function usageView(ctx: ServiceContext): Promise<UsageView> {
  const now = new Date();
  // The last 30 UTC days, today included, so every bar is a whole day.
  const range = { from: new Date(utcDayStart(now).getTime() - (DAYS - 1) * DAY_MS), to: now };
  const [byDay, byModel, byAgent, agents, budget, month, today] = await Promise.all([
    usageReport(ctx, range, "day"),
    usageReport(ctx, range, "model"),
    usageReport(ctx, range, "agent"),
    listAgents(ctx),
    readAccountBudget(ctx),
    spentByAccountSince(ctx, utcMonthStart(now)),
    spentByAccountSince(ctx, utcDayStart(now)),
  ]);
  const costs = new Map(byDay.data.map((row) => [row.key, row.cost_usd]));
  const days = Array.from({ length: DAYS }, (_, i) => {
    const day = new Date(range.from.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    return { day, cost_usd: costs.get(day) ?? 0 };
  });
  const names = new Map(agents.map((row) => [row.agent.id, row.workflowName]));
  return {
    totals: byDay.totals,
    days,
    byModel: byModel.data,
    byAgent: byAgent.data.map((row) => ({ ...row, name: row.key === null ? null : (names.get(row.key) ?? null) })),
    budget,
    spent: { monthUsd: usdOf(month.nanoUsd), todayTokens: today.tokens },
  };
}
