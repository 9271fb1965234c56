import { z } from "@hono/zod-openapi";
import { parseCronExpression } from "cron-schedule";
import { type FieldError, HubError } from "../core/errors";
import { NEVER_FIRES_MESSAGE, firstCronInstant, isTimeZone } from "../lib/cron-time";

/** What starts a workflow's agents (DESIGN §5 "Triggers"). */
export const TRIGGER_TYPES = ["manual", "schedule", "webhook", "poll"] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];
export const WEBHOOK_VERIFY = ["hub", "stripe", "github", "slack", "shopify", "hubspot", "typeform", "token"] as const;

export type ScheduleConfig = { type: "cron"; cron_expression: string; timezone: string } | { type: "interval"; interval_seconds: number };

function isCron(expression: string): boolean {
  try {
    parseCronExpression(expression.trim());
    return true;
  } catch {
    return false;
  }
}

/** `schedule_config` of POST /v1/agents/schedule, and `trigger_config` of a `schedule` trigger. */
export const ScheduleConfigSchema = z
  .discriminatedUnion("type", [
    z
      .object({
        type: z.literal("cron"),
        cron_expression: z
          .string()
          .max(100)
          .refine((expr) => expr.trim().split(/\s+/).length === 5 && isCron(expr), { message: 'Use a standard 5-field cron expression, e.g. "0 9 * * 1".' }),
        timezone: z
          .string()
          .max(64)
          .default("UTC")
          .refine(isTimeZone, { message: "Use an IANA time zone such as Europe/Berlin." })
          .openapi({ description: "IANA time zone the expression is read in (default UTC)." }),
      })
      // An expression can parse and still match no date ("0 0 31 2 *"): refused here, before any
      // schedule is touched, so the agent keeps the one it has.
      .superRefine((config, ctx) => {
        const expression = config.cron_expression.trim();
        if (isCron(expression) && isTimeZone(config.timezone) && !firstCronInstant(expression, config.timezone)) {
          ctx.addIssue({ code: "custom", path: ["cron_expression"], message: NEVER_FIRES_MESSAGE });
        }
      }),
    z.object({
      type: z.literal("interval"),
      interval_seconds: z
        .number()
        .int()
        .min(1)
        .max(31_536_000)
        .openapi({ description: "At least the deployment's MIN_INTERVAL_SECONDS (10 by default in production)." }),
    }),
  ])
  .openapi("ScheduleConfig");

const WebhookConfig = z.object({
  verify: z.enum(WEBHOOK_VERIFY).default("hub"),
  event_types: z.array(z.string().min(1).max(200)).max(100).optional(),
});

const PollConfig = z.object({
  tool: z.string().min(1).max(200),
  arguments: z.record(z.string(), z.unknown()).optional(),
  interval_seconds: z.number().int().min(1).max(31_536_000),
  items_path: z.string().max(500),
  id_path: z.string().min(1).max(500),
  emit: z.enum(["each", "batch"]).default("each"),
  emit_existing: z.boolean().default(false),
});

const CONFIGS: Record<TriggerType, z.ZodTypeAny> = {
  // Unknown keys are dropped rather than refused, as in `schedule_config`: a manual trigger has no
  // settings, so rows mapped to `manual` by migration 0023 (their config kept) can still be edited.
  manual: z.object({}),
  schedule: ScheduleConfigSchema,
  webhook: WebhookConfig,
  poll: PollConfig,
};

export const TRIGGER_DESCRIPTION =
  'What starts the workflow\'s agents: `manual` (`trigger_config` `{}`), `schedule` (`{type: "cron", cron_expression, timezone?}` or `{type: "interval", interval_seconds}`, as `schedule_config`; deploying arms it and changing it re-arms the agents), `webhook` (`{verify?: "hub"|"stripe"|"github"|"slack"|"shopify"|"hubspot"|"typeform"|"token", event_types?: [string]}`; verify defaults to `hub`; provider schemes check the provider\'s signature under the secret set with `PUT /v1/agents/{agent_id}/webhook-secret`) or `poll` (`{tool, arguments?, interval_seconds, items_path, id_path, emit?: "each"|"batch", emit_existing?: false}`: the agent calls the tool every interval and starts a run per new item, keyed by `id_path`, in the list at `items_path`).';

export interface Trigger {
  type: TriggerType;
  config: Record<string, unknown>;
}

/**
 * The trigger as stored (defaults filled in, cron trimmed), or 422 `validation_failed` naming
 * `trigger_type` or `trigger_config.<field>`. Intervals below `minIntervalSeconds` are refused.
 */
export function checkedTrigger(type: string, config: unknown, minIntervalSeconds: number): Trigger {
  const error = (field: string, message: string): never => {
    throw new HubError("validation_failed", "The workflow's trigger is not valid.", { errors: [{ location: "body", field, message }] });
  };
  if (!(TRIGGER_TYPES as readonly string[]).includes(type)) error("trigger_type", `Use one of ${TRIGGER_TYPES.join(", ")}.`);
  const parsed = CONFIGS[type as TriggerType].safeParse(config ?? {});
  if (!parsed.success) {
    const errors: FieldError[] = parsed.error.issues.map((issue) => ({
      location: "body",
      field: ["trigger_config", ...issue.path].join("."),
      message: issue.message,
    }));
    throw new HubError("validation_failed", "The workflow's trigger is not valid.", { errors });
  }
  const value = trimmedCron(parsed.data as Record<string, unknown>);
  if (typeof value.interval_seconds === "number" && value.interval_seconds < minIntervalSeconds) {
    error("trigger_config.interval_seconds", `Must be at least ${minIntervalSeconds} seconds on this deployment.`);
  }
  return { type: type as TriggerType, config: value };
}

/** A stored trigger's schedule, if it is a valid `schedule` trigger (older rows may not be). */
export function scheduleOf(type: string, config: unknown): ScheduleConfig | null {
  if (type !== "schedule") return null;
  const parsed = ScheduleConfigSchema.safeParse(config ?? {});
  return parsed.success ? (trimmedCron(parsed.data) as ScheduleConfig) : null;
}

function trimmedCron<T extends Record<string, unknown>>(config: T): T {
  return typeof config.cron_expression === "string" ? { ...config, cron_expression: config.cron_expression.trim() } : config;
}
