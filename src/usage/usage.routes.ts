import { z } from "@hono/zod-openapi";
import { authedRoute, createRouter } from "../http/router";
import { DEFAULT_SPAN_DAYS, GROUPS, MAX_SPAN_DAYS, usageRange, usageReport } from "./report";
import { UsageReportSchema } from "./schemas";

const Query = z.object({
  from: z
    .string()
    .max(40)
    .optional()
    .openapi({
      param: { name: "from", in: "query" },
      example: "2026-11-01",
      description: `Start (inclusive): a date or a date-time with a zone. Default: ${DEFAULT_SPAN_DAYS} days before \`to\`.`,
    }),
  to: z
    .string()
    .max(40)
    .optional()
    .openapi({
      param: { name: "to", in: "query" },
      example: "2026-11-30",
      description: "End: a date (that whole UTC day included) or a date-time (exclusive). Default: now.",
    }),
  group_by: z
    .enum(GROUPS)
    .default("day")
    .openapi({
      param: { name: "group_by", in: "query" },
      description: "What each row of `data` sums: a UTC day, an agent, a model, a conversation or a workflow.",
    }),
});

const report = authedRoute("data:read", {
  method: "get",
  path: "/usage",
  tags: ["Account"],
  summary: "What the account's model requests spent",
  description: `The ledger of the account's model requests (chat turns, llm steps, builders, direct questions), summed per group over a range of at most ${MAX_SPAN_DAYS} days (422 otherwise): tokens as the providers reported them, cost at the models' prices (MODEL_PRICES, else built-in; an unknown model costs 0), and the number of model calls. \`totals\` sums the whole range. See docs/governance.md.`,
  request: { query: Query },
  responses: { 200: { description: "The report", content: { "application/json": { schema: UsageReportSchema } } } },
});

export const usageRoutes = createRouter().openapi(report, async (c) => {
  const query = c.req.valid("query");
  return c.json(await usageReport(c.var.ctx, usageRange(query), query.group_by), 200);
});
