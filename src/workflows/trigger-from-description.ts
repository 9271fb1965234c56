import type { Trigger } from "./triggers";

/**
 * The trigger a description asks for, read the way the local builder reads steps: plain phrases,
 * no model. "Every Monday at 9am" is a cron schedule, "every 15 minutes" an interval, "when a
 * Stripe payment succeeds" a webhook verified Stripe's way with the event types that phrase
 * means; anything else is `manual` (the person sets the trigger later). Returns the trigger and
 * the rest of the description: the clause that said it ("When a Stripe payment succeeds,") is
 * taken out, so the step builder does not read it as a step.
 */
export function triggerFromDescription(description: string): { trigger: Trigger; rest: string } {
  for (const sentence of sentencesOf(description)) {
    const schedule = scheduleIn(sentence);
    const webhook = schedule ? null : webhookIn(sentence);
    if (!schedule && !webhook) continue;
    const trigger: Trigger = schedule ? { type: "schedule", config: schedule } : { type: "webhook", config: webhook! };
    // "When …, post to Slack": the clause before the first comma is the trigger, the rest a step.
    const comma = sentence.indexOf(",");
    const clause = comma >= 0 ? sentence.slice(0, comma + 1) : sentence;
    return { trigger, rest: description.replace(clause, " ").trim() };
  }
  return { trigger: { type: "manual", config: {} }, rest: description };
}

function sentencesOf(description: string): string[] {
  return description
    .split(/(?<=[.!?;])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean)
    .slice(0, 50);
}

const DAYS: Record<string, number> = { sunday: 0, monday: 1, tuesday: 2, wednesday: 3, thursday: 4, friday: 5, saturday: 6 };

/** "every Monday at 9am", "every day at 18:30", "daily", "weekly", "every 15 minutes", "hourly". */
function scheduleIn(sentence: string): Record<string, unknown> | null {
  const text = sentence.toLowerCase();
  const interval = /\bevery (\d{1,4}) (second|minute|hour)s?\b/.exec(text);
  if (interval) {
    const unit = { second: 1, minute: 60, hour: 3600 }[interval[2] as "second" | "minute" | "hour"];
    return { type: "interval", interval_seconds: Math.max(1, Number(interval[1]) * unit) };
  }
  if (/\b(every hour|hourly)\b/.test(text)) return { type: "interval", interval_seconds: 3600 };
  const day = /\b(?:every|each|on) (monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b/.exec(text);
  const daily = /\b(every (?:day|morning|evening|night)|daily|each day)\b/.test(text);
  const weekly = /\b(weekly|every week)\b/.test(text);
  const monthly = /\b(monthly|every month)\b/.test(text);
  if (!day && !daily && !weekly && !monthly) return null;
  const { hour, minute } = timeIn(text) ?? { hour: /\bevening\b/.test(text) ? 18 : 9, minute: 0 };
  const weekday = day ? DAYS[day[1]!] : weekly ? 1 : "*";
  const dom = monthly ? "1" : "*";
  return { type: "cron", cron_expression: `${minute} ${hour} ${dom} * ${monthly ? "*" : weekday}`, timezone: "UTC" };
}

/** "at 9am", "at 9:30 pm", "at 18:00". */
function timeIn(text: string): { hour: number; minute: number } | null {
  const match = /\bat (\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b/.exec(text);
  if (!match) return null;
  let hour = Number(match[1]);
  const minute = Number(match[2] ?? 0);
  if (match[3] === "pm" && hour < 12) hour += 12;
  if (match[3] === "am" && hour === 12) hour = 0;
  return hour < 24 && minute < 60 ? { hour, minute } : null;
}

/** Phrases that name a provider's event, and the event types they mean. */
const PROVIDER_EVENTS: { verify: string; provider: RegExp; events: [RegExp, string[]][] }[] = [
  {
    verify: "stripe",
    provider: /\bstripe\b/,
    events: [
      [/\b(refund)/, ["charge.refunded"]],
      [/\b(subscri)/, ["customer.subscription.created"]],
      [/\b(checkout)/, ["checkout.session.completed"]],
      [/\b(invoice)/, ["invoice.paid"]],
      [/\b(pay|paid|charge|purchase)/, ["payment_intent.succeeded"]],
    ],
  },
  {
    verify: "shopify",
    provider: /\bshopify\b/,
    events: [
      [/\b(cart|checkout)/, ["checkouts/create"]],
      [/\b(customer|signs? up)/, ["customers/create"]],
      [/\b(order|purchase|buys?)/, ["orders/create"]],
    ],
  },
  {
    verify: "github",
    provider: /\bgithub\b/,
    events: [
      [/\b(pull request|pr)\b/, ["pull_request"]],
      [/\b(issue)/, ["issues"]],
      [/\b(release)/, ["release"]],
      [/\b(push|commit)/, ["push"]],
      [/\b(star)/, ["star"]],
    ],
  },
  {
    verify: "slack",
    provider: /\bslack\b/,
    events: [
      [/\b(mention)/, ["app_mention"]],
      [/\b(message|posts?)\b/, ["message"]],
    ],
  },
  {
    verify: "hubspot",
    provider: /\bhubspot\b/,
    events: [
      [/\b(deal)/, ["deal.creation"]],
      [/\b(contact|lead)/, ["contact.creation"]],
    ],
  },
  { verify: "typeform", provider: /\btypeform\b/, events: [[/./, ["form_response"]]] },
];

/** "When a Stripe payment succeeds …", "whenever someone submits our Typeform", "on a webhook". */
function webhookIn(sentence: string): Record<string, unknown> | null {
  const text = sentence.toLowerCase();
  if (!/^(when|whenever|each time|every time|once|if|on)\b/.test(text) && !/\bwebhook\b/.test(text)) return null;
  for (const { verify, provider, events } of PROVIDER_EVENTS) {
    if (!provider.test(text)) continue;
    const types = events.find(([phrase]) => phrase.test(text))?.[1];
    return { verify, ...(types ? { event_types: types } : {}) };
  }
  return /\bwebhook\b/.test(text) ? { verify: "hub" } : null;
}
