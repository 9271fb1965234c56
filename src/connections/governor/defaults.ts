// The documented rate limits of the native platforms, by platform id: the pace a governed
// connection keeps when the platform's answers carry no RateLimit or X-RateLimit fields. An
// answer that does carry them wins. A platform not listed here (http, webhook, custom ones) is
// paced from its answers alone, or, without any, adaptively after a 429 (see governor.ts).
// Kept here rather than on the platform declarations; a `rateLimit` hint on `definePlatform`
// could replace this table.

export interface Pace {
  /** Requests per window. */
  limit: number;
  windowMs: number;
}

export const PLATFORM_PACES: Readonly<Record<string, Pace>> = {
  // "Posting messages: 1 per second (short bursts > 1 allowed)", per channel, plus a
  // workspace-wide limit; other methods are tiered per minute. One per second for the whole
  // connection is the simple, safe reading.
  // https://api.slack.com/apis/rate-limits (now https://docs.slack.dev/apis/web-api/rate-limits)
  slack: { limit: 1, windowMs: 1000 },
  // "100 requests every 10 seconds" for apps using OAuth and for private apps on Free and
  // Starter accounts (150–190 on Professional and Enterprise).
  // https://developers.hubspot.com/docs/api/usage-details, https://developers.hubspot.com/apisbytier
  hubspot: { limit: 100, windowMs: 10_000 },
  // "An average of three requests per second" per connection; some bursts beyond are allowed.
  // https://developers.notion.com/reference/request-limits
  notion: { limit: 3, windowMs: 1000 },
  // "5 requests per second per base" (and 50 per second per token); after a 429, 30 s before
  // requests succeed again. https://support.airtable.com/docs/managing-api-call-limits-in-airtable
  airtable: { limit: 5, windowMs: 1000 },
  // Mailchimp limits concurrency, not rate: "10 simultaneous connections" per account, and sends
  // no rate-limit fields. The governor paces; 10 per second keeps about 10 in flight at the
  // API's usual answer time of well under a second.
  // https://mailchimp.com/developer/marketing/docs/fundamentals/#api-limits
  mailchimp: { limit: 10, windowMs: 1000 },
  // "The default maximum rate limit is 2 requests per second per team" (raised for trusted
  // senders; the reference now says 5). Resend sends the IETF fields, which then win.
  // https://resend.com/docs/api-reference/rate-limit, https://resend.com/changelog/api-rate-limit
  resend: { limit: 2, windowMs: 1000 },
  // The global limit: "50 requests per second" per bot token; per-route limits come as
  // X-RateLimit-* fields. https://docs.discord.com/developers/topics/rate-limits#global-rate-limit
  discord: { limit: 50, windowMs: 1000 },
  // "The API will not allow bulk notifications to more than ~30 users per second" (and about
  // one message per second per chat, 20 per minute per group).
  // https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this
  telegram: { limit: 30, windowMs: 1000 },
  // "A rate limit of 5 requests per second per account" on API v3, with no rate-limit fields on
  // its answers. https://developers.activecampaign.com/reference/rate-limits
  activecampaign: { limit: 5, windowMs: 1000 },
  // Limits per endpoint: the /contacts family 36,000 requests an hour (10 a second); sending email
  // 1,000 and SMS 150 a second. Its answers' x-sib-ratelimit-* fields are not ones headers.ts reads,
  // so the tightest the tools meet is kept. https://developers.brevo.com/docs/api-limits
  brevo: { limit: 10, windowMs: 1000 },
};
