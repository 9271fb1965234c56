// Reading failed answers the same way for every platform (and for http_request): how long the
// platform asked to wait, and a short text of an error body no reader knows better.

/**
 * Seconds to wait from a Retry-After value: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
 * Undefined when absent or unreadable; a date in the past is 0.
 */
export function retryAfterSeconds(value: string | null | undefined, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d{1,10}(\.\d+)?$/.test(text)) return Math.ceil(Number(text));
  // An HTTP-date is short and names its day and month ("Sun, 06 Nov 1994 08:49:37 GMT"); anything
  // else (a negative number, which Date.parse would take for a year) is not one.
  const at = text.length <= 64 && /^[A-Za-z]{3},/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** A number of seconds from a body field (Telegram's parameters.retry_after, Discord's retry_after). */
export function secondsField(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.ceil(value) : undefined;
}

/** The common shapes of an error body, for platforms without a reader of their own (and the fallback of those with one). */
export function describeBody(body: any): string {
  if (body === null || body === undefined) return "";
  if (typeof body === "string") return body.slice(0, 300);
  const candidate = body.message ?? body.error?.message ?? body.error_description ?? body.error ?? body.detail ?? body.title ?? body.description;
  return typeof candidate === "string" ? candidate.slice(0, 300) : JSON.stringify(body).slice(0, 300);
}

/** A string field of a body, bounded, or undefined. */
export function text(value: unknown, max = 500): string | undefined {
  return typeof value === "string" && value ? value.slice(0, max) : undefined;
}
