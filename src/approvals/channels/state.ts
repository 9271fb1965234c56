import { type NotifyChannel, NotifyChannelSchema } from "./schema";

/** The Slack message an approval was posted as: what chat.update needs once it is decided. */
export interface SlackMessage {
  channel: string;
  ts: string;
}

/**
 * One channel as the approval's `notify` column keeps it: the channel as the agent_config named
 * it, and what was learnt when the request was sent (the Slack message; the SHA-256 of the email
 * recipient's own part of the link, which says who decided).
 */
export type NotifyEntry = NotifyChannel & { message?: SlackMessage; recipient_hash?: string };

/** The stored entries that still read as channels (anything else is skipped, never thrown on). */
export function entriesOf(stored: readonly unknown[]): NotifyEntry[] {
  return stored.flatMap((item) => {
    if (!item || typeof item !== "object" || Array.isArray(item)) return [];
    const { message, recipient_hash, ...channel } = item as Record<string, unknown>;
    const parsed = NotifyChannelSchema.safeParse(channel);
    if (!parsed.success) return [];
    return [
      {
        ...parsed.data,
        ...(isSlackMessage(message) ? { message } : {}),
        ...(typeof recipient_hash === "string" ? { recipient_hash } : {}),
      },
    ];
  });
}

const isSlackMessage = (value: unknown): value is SlackMessage =>
  !!value && typeof value === "object" && typeof (value as SlackMessage).channel === "string" && typeof (value as SlackMessage).ts === "string";
