import { z } from "@hono/zod-openapi";
import { ConcurrencyKeySchema, DebounceSchema, RateLimitSchema } from "./flow-control-settings";
import { RetryPolicySchema } from "./retry-policy";

/** A workflow's `settings`: how its runs are retried, limited, reported, kept and started. */
export const NOTIFY_EVENTS = ["execution.succeeded", "execution.failed"] as const;
export const MAX_WORKFLOW_CONCURRENCY = 100;

export const SettingsSchema = z
  .object({
    retry: RetryPolicySchema.optional(),
    concurrency: z
      .number()
      .int()
      .min(1)
      .max(MAX_WORKFLOW_CONCURRENCY)
      .optional()
      .openapi({ description: "At most this many of the workflow's executions run at once; the others wait their turn, queued." }),
    on_failure: z
      .object({ workflow_id: z.number().int().positive() })
      .strict()
      .optional()
      .openapi({ description: "An error workflow: run with `{execution, error}` when an execution of this one fails." }),
    notify: z
      .object({
        url: z
          .string()
          .url()
          .max(2000)
          .refine((url) => /^https?:\/\//i.test(url), "Use an http or https URL."),
        events: z
          .array(z.enum(NOTIFY_EVENTS))
          .min(1)
          .default([...NOTIFY_EVENTS]),
      })
      .strict()
      .optional()
      .openapi({
        description:
          'Signed POSTs of finished executions to `url` (X-Hub-Timestamp, X-Hub-Signature: sha256=<HMAC of "<timestamp>.<body>"> with the workflow\'s `notify_secret`, shown once when notify is first set), retried with backoff.',
      }),
    strict_placeholders: z.boolean().optional().openapi({
      description:
        "Whether a placeholder with no value and no `| default:` fails its step (true, the default) or is left as written (false: how workflows saved before placeholders were strict keep running; they were given `false`).",
    }),
    retention_days: z.number().int().min(0).max(3650).optional().openapi({
      description:
        "Days this workflow's finished runs are kept (with their step records), instead of the deployment's EXECUTION_RETENTION_DAYS; 0 deletes them at the next sweep (within minutes).",
    }),
    debounce: DebounceSchema.optional(),
    concurrency_key: ConcurrencyKeySchema.optional(),
    rate_limit: RateLimitSchema.optional(),
  })
  .strict()
  .refine((settings) => !settings.concurrency_key || settings.concurrency, {
    message: "concurrency_key counts runs against concurrency: set concurrency too.",
    path: ["concurrency_key"],
  })
  .openapi("WorkflowSettings");
export type WorkflowSettings = z.infer<typeof SettingsSchema>;
