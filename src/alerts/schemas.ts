import { z } from "@hono/zod-openapi";
import { MAX_NOTIFY_CHANNELS, NotifyChannelSchema } from "../approvals/channels/schema";
import { ALERT_KINDS } from "../db/schema";
import { Timestamp } from "../http/schemas";

export const DEFAULT_MIN_INTERVAL_SECONDS = 900;
/** A channel is told at most once a minute: the every-minute sweep sends what waits. */
export const MIN_INTERVAL_SECONDS = 60;
export const MAX_INTERVAL_SECONDS = 86_400;

const AlertKindSchema = z.enum(ALERT_KINDS);

/** PUT /v1/me/alerts (DESIGN §6.5 Alerts). */
export const AlertsChange = z
  .object({
    on: z.array(AlertKindSchema).max(ALERT_KINDS.length).openapi({ description: "What to be told of; empty turns alerts off." }),
    notify: z
      .array(NotifyChannelSchema)
      .max(MAX_NOTIFY_CHANNELS)
      .default([])
      .openapi({ description: "Channels, as for approvals (agent_config.approvals.notify): Slack, email or a signed webhook." }),
    min_interval_seconds: z
      .number()
      .int()
      .min(MIN_INTERVAL_SECONDS)
      .max(MAX_INTERVAL_SECONDS)
      .optional()
      .openapi({ description: `At most one message per channel per this many seconds (default ${DEFAULT_MIN_INTERVAL_SECONDS}; left out: kept).` }),
    rotate_signing_secret: z.boolean().optional().openapi({ description: "Issue a new webhook signing secret (answered once, in this response)." }),
  })
  .strict()
  .superRefine((body, issues) => {
    if (body.on.length > 0 && body.notify.length === 0) {
      issues.addIssue({ code: "custom", path: ["notify"], message: "Name at least one channel to be told (or send an empty `on` to turn alerts off)." });
    }
  })
  .openapi("AlertsChange");
export type AlertsChange = z.infer<typeof AlertsChange>;

export const AlertsSchema = z
  .object({
    on: z.array(AlertKindSchema),
    notify: z.array(NotifyChannelSchema),
    min_interval_seconds: z.number().int(),
    delivery: z
      .array(
        z.object({
          last_sent_at: Timestamp.nullable(),
          pending_events: z.number().int().openapi({ description: "Events waiting for this channel's next message." }),
          last_error: z.string().nullable().openapi({ description: "Why the last attempt failed (retried at the next sweep); null after a success." }),
        }),
      )
      .openapi({ description: "Each channel's state, in the order of `notify`." }),
    signing_secret: z.string().optional().openapi({
      description:
        "Webhook messages are signed with it (X-Hub-Signature, the hub's scheme). Only in the answer that issued it: the first PUT and one with rotate_signing_secret.",
    }),
  })
  .openapi("Alerts");
export type AlertsView = z.infer<typeof AlertsSchema>;
