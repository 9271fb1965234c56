// What a platform's answer says about its rate limit: Retry-After (RFC 9110 §10.2.3), the IETF
// RateLimit fields (draft-ietf-httpapi-ratelimit-headers, every shape in use: the separate
// RateLimit-Limit/-Remaining/-Reset of drafts ≤ 06, `limit=10, remaining=3, reset=1` of draft 07,
// `"default";r=3;t=1` with RateLimit-Policy `10;w=1` or `"default";q=10;w=1` of later drafts) and
// the older X-RateLimit-Limit/-Remaining/-Reset (reset as seconds from now or as an epoch) and
// Discord's X-RateLimit-Reset-After. Read by scanning, never by a backtracking pattern.

/** The longest hold a Retry-After may ask for: a day. Anything longer is read as a day. */
const MAX_HOLD_MS = 24 * 3600 * 1000;
/** Below this share of its limit left, a connection counts as close to its limit (and is governed). */
export const LOW_REMAINING_SHARE = 0.2;

/** One answer's rate-limit facts, with times made absolute (ms since the epoch) where they were read. */
export interface LimitSignal {
  status: number;
  /** Retry-After: no call before this time. */
  retryAt?: number;
  /** Requests allowed per window. */
  limit?: number;
  /** The window `limit` counts over, in ms, where the answer says it (RateLimit-Policy `w`). */
  windowMs?: number;
  /** Requests left in the current window. */
  remaining?: number;
  /** When the current window ends. */
  resetAt?: number;
}

/** Whether the answer says the connection is limited now (429, 503) or nearly so (< 20 % left). */
export function isLimited(signal: LimitSignal): boolean {
  if (signal.status === 429 || signal.status === 503) return true;
  if (signal.remaining === undefined) return false;
  if (signal.limit !== undefined && signal.limit > 0) return signal.remaining < signal.limit * LOW_REMAINING_SHARE;
  return signal.remaining <= 0;
}

/** Whether the answer carries anything the governor learns from. */
export function hasLimitFacts(signal: LimitSignal): boolean {
  return signal.retryAt !== undefined || signal.limit !== undefined || signal.remaining !== undefined || signal.resetAt !== undefined;
}

export function readLimitSignal(status: number, headers: Headers, now = Date.now()): LimitSignal {
  const signal: LimitSignal = { status };
  if (status === 429 || status === 503) signal.retryAt = retryAt(headers.get("Retry-After"), now);

  // Later drafts and draft 07: structured RateLimit and RateLimit-Policy.
  const combined = headers.get("RateLimit");
  if (combined) {
    const items = parseItems(combined);
    // Several policies may report at once: the one with the least left binds.
    let chosen: Item | undefined;
    for (const item of items) {
      const remaining = number(item.params.remaining ?? item.params.r);
      if (remaining === undefined) continue;
      if (!chosen || remaining < (number(chosen.params.remaining ?? chosen.params.r) ?? Number.POSITIVE_INFINITY)) chosen = item;
    }
    if (chosen) {
      signal.remaining = number(chosen.params.remaining ?? chosen.params.r);
      const reset = number(chosen.params.reset ?? chosen.params.t);
      if (reset !== undefined) signal.resetAt = now + Math.min(reset * 1000, MAX_HOLD_MS);
      const limit = number(chosen.params.limit ?? chosen.params.q);
      if (limit !== undefined) signal.limit = limit;
    }
  }
  const policy = headers.get("RateLimit-Policy") ?? headers.get("RateLimit-Limit");
  if (policy) {
    const strictest = strictestPolicy(parseItems(policy));
    if (strictest) {
      signal.limit = strictest.limit;
      if (strictest.windowMs !== undefined) signal.windowMs = strictest.windowMs;
    }
  }
  // Drafts ≤ 06 (Resend, for one): separate fields, reset in seconds from now.
  signal.remaining ??= number(headers.get("RateLimit-Remaining"));
  const draftReset = number(headers.get("RateLimit-Reset"));
  if (signal.resetAt === undefined && draftReset !== undefined) signal.resetAt = now + Math.min(draftReset * 1000, MAX_HOLD_MS);

  // The older X- fields.
  signal.limit ??= number(firstItem(headers.get("X-RateLimit-Limit")));
  signal.remaining ??= number(firstItem(headers.get("X-RateLimit-Remaining")));
  const resetAfter = number(headers.get("X-RateLimit-Reset-After"));
  if (signal.resetAt === undefined && resetAfter !== undefined) signal.resetAt = now + Math.min(resetAfter * 1000, MAX_HOLD_MS);
  signal.resetAt ??= resetFrom(number(headers.get("X-RateLimit-Reset")), now);
  // X's API v2 spells them with one more hyphen, the reset as epoch seconds
  // (docs.x.com/x-api/fundamentals/rate-limits).
  signal.limit ??= number(headers.get("x-rate-limit-limit"));
  signal.remaining ??= number(headers.get("x-rate-limit-remaining"));
  signal.resetAt ??= resetFrom(number(headers.get("x-rate-limit-reset")), now);
  for (const key of Object.keys(signal) as (keyof LimitSignal)[]) if (signal[key] === undefined) delete signal[key];
  return signal;
}

/**
 * Retry-After as an absolute time: delay-seconds (decimals accepted, as Notion sends) or an
 * HTTP-date. Undefined when absent, unreadable, or already past.
 */
export function retryAt(value: string | null, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  const seconds = number(text);
  if (seconds !== undefined) return seconds > 0 ? now + Math.min(seconds * 1000, MAX_HOLD_MS) : undefined;
  // An HTTP-date is about 29 characters; anything much longer is not one, and is not parsed.
  const at = text.length <= 64 ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at) || at <= now) return undefined;
  return Math.min(at, now + MAX_HOLD_MS);
}

/**
 * X-RateLimit-Reset is seconds from now on some APIs and an epoch on others (GitHub, Intercom,
 * Discord); epoch milliseconds turn up too. Told apart by size: no window lasts 30 years.
 */
function resetFrom(value: number | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  let at: number;
  if (value > 1e12) at = value;
  else if (value > 1e9) at = value * 1000;
  else at = now + value * 1000;
  return Math.min(Math.max(at, now), now + MAX_HOLD_MS);
}

/** A non-negative decimal number, or undefined: digits with at most one dot, nothing else. */
function number(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (text.length === 0 || text.length > 20) return undefined;
  let dots = 0;
  for (const char of text) {
    if (char === ".") dots++;
    else if (char < "0" || char > "9") return undefined;
  }
  if (dots > 1 || text === ".") return undefined;
  const parsed = Number(text);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/** `10, 10;w=1` → `10` (the first list member's bare value). */
function firstItem(value: string | null): string | undefined {
  if (!value) return undefined;
  return value.split(",", 1)[0]?.split(";", 1)[0]?.trim();
}

interface Item {
  /** The bare value before the first `;` (a number, or a quoted policy name). */
  value: string;
  params: Record<string, string>;
}

/**
 * A structured-field list, loosely: members split at `,`, parameters at `;`, `key=value` pairs.
 * Draft 07's dictionary (`limit=10, remaining=3`) reads as members that are each one pair; they
 * are merged into one item so that it looks like the later drafts' single member with parameters.
 */
function parseItems(header: string): Item[] {
  const items: Item[] = [];
  const loose: Record<string, string> = {};
  for (const member of header.slice(0, 2000).split(",")) {
    const [head = "", ...rest] = member.split(";");
    const params: Record<string, string> = {};
    for (const part of rest) {
      const eq = part.indexOf("=");
      if (eq > 0) params[part.slice(0, eq).trim().toLowerCase()] = unquote(part.slice(eq + 1).trim());
    }
    const eq = head.indexOf("=");
    if (eq > 0 && rest.length === 0) loose[head.slice(0, eq).trim().toLowerCase()] = unquote(head.slice(eq + 1).trim());
    else items.push({ value: unquote(head.trim()), params });
  }
  if (Object.keys(loose).length > 0) items.push({ value: "", params: loose });
  return items;
}

function unquote(text: string): string {
  return text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text;
}

/** Of several policies (`10;w=1, 1000;w=3600`), the one allowing the fewest requests per second. */
function strictestPolicy(items: Item[]): { limit: number; windowMs?: number } | undefined {
  let best: { limit: number; windowMs?: number; rate: number } | undefined;
  for (const item of items) {
    const limit = number(item.params.q ?? item.params.limit ?? item.value);
    if (limit === undefined) continue;
    const windowSeconds = number(item.params.w ?? item.params.window);
    const windowMs = windowSeconds !== undefined && windowSeconds > 0 ? windowSeconds * 1000 : undefined;
    const rate = windowMs !== undefined ? limit / windowMs : Number.POSITIVE_INFINITY;
    if (!best || rate < best.rate) best = { limit, windowMs, rate };
  }
  return best && { limit: best.limit, ...(best.windowMs !== undefined ? { windowMs: best.windowMs } : {}) };
}
