import type { AlertEventRow, AlertKind } from "../db/schema";
import type { ChannelEmail } from "../approvals/channels/email";
import { escapeHtml } from "../approvals/channels/email";
import { type Block, mrkdwn } from "../approvals/channels/slack";

/** Items a message lists; the rest are counted. */
export const MAX_LISTED = 10;

export interface DigestItem {
  kind: AlertKind;
  /** What it is about: the run's, agent's or connection's id, or the budget's holder. */
  id: string;
  summary: string;
  /** Times it happened (repeats of one subject fold into one item). */
  count: number;
  first_at: string;
  last_at: string;
  /** Where to look: the dashboard page, absolute when the hub knows its public address. */
  link: string;
}

/** What one message tells a channel: everything since its last message, counted, the first few listed. */
export interface Digest {
  id: string;
  type: "alerts.digest";
  sent_at: string;
  /** When this channel's previous message went; null for its first. */
  since: string | null;
  counts: Partial<Record<AlertKind, number>>;
  items: DigestItem[];
  /** Events counted but not listed. */
  more: number;
  /** Events not kept because the backlog was full (MAX_PENDING_ALERT_EVENTS). */
  not_recorded: number;
}

const PAGES: Record<AlertKind, (subject: string) => string> = {
  run_failed: (id) => `/app/executions/${encodeURIComponent(id)}`,
  agent_stopped: (id) => `/app/agents/${encodeURIComponent(id)}`,
  connection_expired: (id) => `/app/connections/${encodeURIComponent(id)}`,
  budget_exceeded: () => "/app/usage",
};

const TITLES: Record<AlertKind, string> = {
  run_failed: "Run failed",
  agent_stopped: "Agent stopped",
  connection_expired: "Connection expired",
  budget_exceeded: "Budget reached",
};

export function buildDigest(
  events: AlertEventRow[],
  options: { id: string; now: Date; since: Date | null; notRecorded: number; publicUrl: string | undefined },
): Digest {
  const counts: Partial<Record<AlertKind, number>> = {};
  for (const event of events) counts[event.kind] = (counts[event.kind] ?? 0) + event.occurrences;
  const items = events.slice(0, MAX_LISTED).map((event) => ({
    kind: event.kind,
    id: event.subject,
    summary: event.summary,
    count: event.occurrences,
    first_at: event.createdAt.toISOString(),
    last_at: event.lastAt.toISOString(),
    link: `${options.publicUrl ?? ""}${PAGES[event.kind](event.subject)}`,
  }));
  return {
    id: options.id,
    type: "alerts.digest",
    sent_at: options.now.toISOString(),
    since: options.since?.toISOString() ?? null,
    counts,
    items,
    more: events.slice(MAX_LISTED).reduce((sum, event) => sum + event.occurrences, 0),
    not_recorded: options.notRecorded,
  };
}

const PHRASES: Record<AlertKind, [string, string]> = {
  run_failed: ["run failed", "runs failed"],
  agent_stopped: ["agent stopped", "agents stopped"],
  connection_expired: ["connection expired", "connections expired"],
  budget_exceeded: ["model request stopped by a budget", "model requests stopped by a budget"],
};

/** "2 runs failed, 1 connection expired": the message's one line. */
export function headline(digest: Digest): string {
  const parts = (Object.keys(PHRASES) as AlertKind[]).flatMap((kind) => {
    const n = digest.counts[kind];
    return n ? [`${n} ${PHRASES[kind][n === 1 ? 0 : 1]}`] : [];
  });
  if (digest.not_recorded) parts.push(`${digest.not_recorded} more not kept (too many waiting)`);
  return parts.join(", ") || "Nothing new";
}

const line = (item: DigestItem) => `${TITLES[item.kind]}${item.count > 1 ? ` (×${item.count})` : ""}: ${item.summary}`;
const moreText = (digest: Digest) => (digest.more > 0 ? `…and ${digest.more} more (the API and the dashboard list them all).` : undefined);

/** The Slack message: the headline, one section per listed item with its link, and what is left over. */
export function slackDigest(digest: Digest): { text: string; blocks: Block[] } {
  const text = mrkdwn(`Hub alerts: ${headline(digest)}`);
  const items: Block[] = digest.items.map((item) => ({
    type: "section",
    text: { type: "mrkdwn", text: cut(`${mrkdwn(line(item))}\n${slackLink(item)}`) },
  }));
  const more = moreText(digest);
  return {
    text,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: cut(`*Hub alerts*: ${mrkdwn(headline(digest))}`) } },
      ...items,
      ...(more ? [{ type: "context", elements: [{ type: "mrkdwn", text: mrkdwn(more) }] }] : []),
    ],
  };
}

/** An absolute link is a Slack link; a path alone (no PUBLIC_URL) is shown as code. */
function slackLink(item: DigestItem): string {
  const label = mrkdwn(item.id.replaceAll("|", "/"));
  return /^https?:\/\//.test(item.link) ? `<${item.link.replaceAll(">", "%3E")}|${label}>` : `\`${label}\` · ${mrkdwn(item.link)}`;
}

const cut = (text: string, max = 2900) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The email: the headline as its subject, each listed item with its link, in text and HTML. */
export function emailDigest(digest: Digest, to: string): ChannelEmail {
  const more = moreText(digest);
  const subject = `Hub alerts: ${headline(digest)}`.slice(0, 250);
  const text = [
    `${headline(digest)}${digest.since ? ` since ${digest.since}` : ""}.`,
    "",
    ...digest.items.flatMap((item) => [line(item), `  ${item.link}`]),
    ...(more ? ["", more] : []),
    "",
    "You get this because alerts are on for your account (PUT /v1/me/alerts).",
  ].join("\n");
  const html = [
    `<p>${escapeHtml(headline(digest))}${digest.since ? ` since ${escapeHtml(digest.since)}` : ""}.</p>`,
    "<ul>",
    ...digest.items.map((item) => `<li>${escapeHtml(line(item))} (<a href="${escapeHtml(item.link)}">${escapeHtml(item.id)}</a>)</li>`),
    "</ul>",
    ...(more ? [`<p>${escapeHtml(more)}</p>`] : []),
    `<p style="color:#374151;font-size:14px">You get this because alerts are on for your account (PUT /v1/me/alerts).</p>`,
  ].join("\n");
  return { to, subject, text, html };
}
