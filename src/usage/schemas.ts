import { z } from "@hono/zod-openapi";

export const ModelUsageSchema = z
  .object({
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    cost_usd: z.number().openapi({ description: "Tokens × the model's price (MODEL_PRICES, else the built-in price; 0 for a model with neither)." }),
    model: z.string().openapi({ description: "The model of the last request counted." }),
  })
  .openapi("ModelUsage", { description: "What model requests spent, as the providers reported it (DESIGN §6.2 Ledger)." });

/** The four numbers of a group and of the totals. */
const Amounts = {
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cost_usd: z.number(),
  model_calls: z.number().int(),
};

export const UsageTotalsSchema = z.object(Amounts).openapi("UsageTotals");

export const UsageReportSchema = z
  .object({
    data: z.array(
      z.object({
        key: z.string().nullable().openapi({
          description:
            "The group: a UTC day (`2026-11-22`), a model, or an agent's, conversation's or workflow's id (as text); null for requests of no agent, conversation or workflow.",
        }),
        ...Amounts,
      }),
    ),
    totals: UsageTotalsSchema,
    from: z.string().openapi({ format: "date-time", description: "The start of the range (inclusive)." }),
    to: z.string().openapi({ format: "date-time", description: "The end of the range (exclusive)." }),
    group_by: z.enum(["day", "agent", "model", "conversation", "workflow"]),
  })
  .openapi("UsageReport");

export const AccountBudgetSchema = z
  .object({
    max_usd_per_month: z.number().nullable().openapi({ description: "What the account may spend in a UTC calendar month, in US dollars; null: no limit." }),
    max_tokens_per_day: z.number().int().nullable().openapi({ description: "Tokens (input and output) the account may use in a UTC day; null: no limit." }),
  })
  .openapi("AccountBudget");

export const AccountBudgetChange = z
  .object({
    max_usd_per_month: z.number().positive().max(1_000_000).nullable().optional(),
    max_tokens_per_day: z.number().int().positive().max(1e12).nullable().optional(),
  })
  .strict()
  .openapi("AccountBudgetChange", { description: "The fields to set; null clears one, a field left out keeps its value." });

/** agent_config.budget as documented; checked by agentBudgetErrors (field `agent_config.budget.<name>`), so every door refuses the same. */
export const AgentBudgetSchema = z
  .object({
    max_tokens_per_turn: z.number().optional().openapi({ description: "Tokens (input and output) one chat turn may use; a whole number." }),
    max_tokens_per_run: z.number().optional().openapi({ description: "Tokens one run of the agent may use; a whole number." }),
    max_usd_per_run: z.number().optional().openapi({ description: "US dollars one run may spend." }),
    max_usd_per_day: z.number().optional().openapi({ description: "US dollars the agent may spend in a UTC day, its chats and runs together." }),
  })
  .catchall(z.unknown())
  .openapi("AgentBudget", {
    description:
      'Before each model request, a budget that what the turn, run or day has spent has reached stops it: a chat turn ends with `status: "budget_exceeded"`, an llm step fails with `error_code: "budget_exceeded"`. Positive amounts; unknown keys are refused (422).',
  });
