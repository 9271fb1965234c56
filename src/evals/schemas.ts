import { z } from "@hono/zod-openapi";
import { JsonObject, Timestamp } from "../http/schemas";

/** Cases one eval runs at most (DESIGN §6.3). */
export const MAX_EVAL_CASES = 50;

export const EvalCaseSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    input: z.union([z.string().min(1).max(20_000), JsonObject]).openapi({ description: "The task as the agent's prompt: text, or an object given as JSON." }),
    mocks: z
      .record(z.string().max(200), z.unknown())
      .optional()
      .openapi({ description: "What each tool answers, by name; an unmocked tool answers `{mocked: false}`. Nothing outside is called." }),
    expect: z
      .object({
        tools_called: z
          .array(z.string().max(200))
          .max(50)
          .optional()
          .openapi({ description: "Tools that must be called, in this order (others may come between)." }),
        tools_not_called: z.array(z.string().max(200)).max(50).optional(),
        output_contains: z.string().max(2000).optional(),
        output_schema: JsonObject.optional().openapi({ description: "A JSON Schema the final answer (JSON, bare or fenced) must match." }),
      })
      .strict()
      .default({}),
  })
  .strict()
  .openapi("EvalCase");
export type EvalCase = z.infer<typeof EvalCaseSchema>;

export const EvalRequestSchema = z
  .object({ cases: z.array(EvalCaseSchema).min(1).max(MAX_EVAL_CASES) })
  .strict()
  .openapi("EvalRequest");

export const EvalCaseResultSchema = z
  .object({
    name: z.string(),
    verdict: z.enum(["passed", "failed"]),
    failures: z.array(z.string()).openapi({ description: "What differed from `expect`, one sentence each; empty when passed." }),
    trajectory: z.array(z.object({ tool: z.string(), arguments: JsonObject })).openapi({ description: "Every tool call the model made, in order." }),
    output: z.string().openapi({ description: "The agent's final answer." }),
  })
  .openapi("EvalCaseResult");
export type EvalCaseResult = z.infer<typeof EvalCaseResultSchema>;

export const EvalSchema = z
  .object({
    id: z.string(),
    agent_id: z.string(),
    passed: z.number().int(),
    failed: z.number().int(),
    cases: z.array(EvalCaseResultSchema),
    created_at: Timestamp,
  })
  .openapi("Eval");
