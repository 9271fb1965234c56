import { z } from "@hono/zod-openapi";

/**
 * The flow-control parts of a workflow's `settings` (DESIGN §6.5 "Flow control"); how they are
 * kept is src/executions/flow-control.ts. Every bound here bounds the state a workflow can hold.
 */

/** A key is a placeholder over the start's input: `{{input.customer}}`. */
const FlowKeySchema = z
  .string()
  .min(1)
  .max(500)
  .refine((key) => key.includes("{{"), "Use a placeholder over the input, such as {{input.customer}}.");

export const MAX_DEBOUNCE_SECONDS = 3600;
export const MAX_DEBOUNCE_CAP_SECONDS = 86_400;

export const DebounceSchema = z
  .object({
    key: FlowKeySchema.openapi({ description: "Starts whose key (a placeholder over the input) is equal collapse into one run." }),
    seconds: z.number().int().min(1).max(MAX_DEBOUNCE_SECONDS).openapi({ description: "The run starts this long after the last start of its key." }),
    max_seconds: z
      .number()
      .int()
      .min(1)
      .max(MAX_DEBOUNCE_CAP_SECONDS)
      .optional()
      .openapi({ description: "The run starts at most this long after the first start of its window, however many follow." }),
  })
  .strict()
  .refine((debounce) => debounce.max_seconds === undefined || debounce.max_seconds >= debounce.seconds, {
    message: "max_seconds must be at least seconds.",
    path: ["max_seconds"],
  })
  .openapi({
    description:
      "Starts (webhook, poll, manual) with an equal `key` within `seconds` of each other collapse into one run, started `seconds` after the last with the last input; every start is answered with that run's execution_id. Schedules are not debounced.",
  });

export const ConcurrencyKeySchema = FlowKeySchema.openapi({
  description: "With `concurrency`: at most that many runs at once per value of this key (a placeholder over the input), instead of per workflow.",
});

export const RateLimitSchema = z
  .object({
    limit: z.number().int().min(1).max(100_000),
    period_seconds: z.number().int().min(1).max(86_400),
    mode: z.enum(["skip", "queue"]).default("skip"),
  })
  .strict()
  .openapi({
    description:
      'At most `limit` starts per fixed window of `period_seconds`. Past it, `skip` answers 202 `{status: "skipped", reason: "rate_limited"}` (and logs the event of an agent\'s start); `queue` starts the run in the next window with room.',
  });

export type DebounceSettings = z.infer<typeof DebounceSchema>;
export type RateLimitSettings = z.infer<typeof RateLimitSchema>;
