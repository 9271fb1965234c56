import { authedRoute, createRouter } from "../http/router";
import { readAccountBudget, writeAccountBudget } from "./account-budget";
import { AccountBudgetChange, AccountBudgetSchema } from "./schemas";

const BUDGET_DOC =
  "Before each model request of the account (chat turns, llm steps, builders), what it has spent this UTC calendar month and used this UTC day is checked against these: a budget reached stops the request (a turn ends `budget_exceeded`, a step fails with that code). See docs/governance.md.";

const read = authedRoute("data:read", {
  method: "get",
  path: "/me/budget",
  tags: ["Account"],
  summary: "The account's budget",
  description: BUDGET_DOC,
  responses: { 200: { description: "The budget; null fields have no limit", content: { "application/json": { schema: AccountBudgetSchema } } } },
});

const write = authedRoute(
  "data:write",
  {
    method: "put",
    path: "/me/budget",
    tags: ["Account"],
    summary: "Set the account's budget",
    description: `${BUDGET_DOC} A field left out keeps its value; null clears it.`,
    request: { body: { required: true, content: { "application/json": { schema: AccountBudgetChange } } } },
    responses: { 200: { description: "The budget as stored", content: { "application/json": { schema: AccountBudgetSchema } } } },
  },
  { role: "admin" },
);

export const budgetRoutes = createRouter()
  .openapi(read, async (c) => c.json(await readAccountBudget(c.var.ctx), 200))
  .openapi(write, async (c) => c.json(await writeAccountBudget(c.var.ctx, c.req.valid("json")), 200));
