import { z } from "@hono/zod-openapi";

/** How a step (or, as `settings.retry`, every step of a workflow) is tried again after a failure. */
export const RetryPolicySchema = z
  .object({
    max_attempts: z.number().int().min(1).max(10),
    delay_seconds: z.number().min(0).max(3600).default(5),
    backoff: z.enum(["fixed", "exponential"]).default("fixed"),
    on: z.array(z.number().int().min(100).max(599)).max(20).optional().openapi({
      description:
        "HTTP statuses retried even though they are permanent (400, 401, 403, 404, 409, 410, 422 fail a tool step at once otherwise), e.g. [409] for a platform that frees the conflict soon. Transient failures (408, 425, 429, 5xx, network) are always retried.",
    }),
  })
  .openapi("RetryPolicy");
export type RetryPolicy = z.infer<typeof RetryPolicySchema>;
