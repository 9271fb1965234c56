import { z } from "@hono/zod-openapi";

/** Channels one agent tells of each approval at most. */
export const MAX_NOTIFY_CHANNELS = 5;

/** Where a person is told of an approval and can decide it (agent_config.approvals.notify, DESIGN §6.2). */
export const NotifyChannelSchema = z.discriminatedUnion("via", [
  z.object({ via: z.literal("slack"), connection_id: z.number().int().positive(), channel: z.string().min(1).max(200) }).strict(),
  z
    .object({
      via: z.literal("email"),
      connection_id: z.number().int().positive(),
      to: z.string().email().max(320),
      /** The sender; default: the connection's own (default_from, default_sender_email; Mailgun: approvals@<domain>). */
      from: z.string().min(3).max(320).optional(),
    })
    .strict(),
  z.object({ via: z.literal("webhook"), url: z.string().url().max(2048) }).strict(),
]);
export type NotifyChannel = z.infer<typeof NotifyChannelSchema>;

export const ApprovalsConfigSchema = z.object({ notify: z.array(NotifyChannelSchema).max(MAX_NOTIFY_CHANNELS).default([]) }).strict();

/** The channels an agent_config names (`approvals.notify`), as checked when it was stored; anything else: none. */
export function notifyChannelsOf(config: Record<string, unknown> | null | undefined): NotifyChannel[] {
  const parsed = ApprovalsConfigSchema.safeParse(config?.approvals ?? {});
  return parsed.success ? parsed.data.notify : [];
}
