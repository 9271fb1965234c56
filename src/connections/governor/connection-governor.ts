import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../env";
import { PLATFORM_PACES, type Pace } from "./defaults";
import { isLimited, type LimitSignal } from "./headers";

/** Calls go at this share of the limit the platform states or documents, never at the limit itself. */
const SAFETY = 0.9;
/** A connection with no sign of a limit for this long is no longer governed: isolates stop asking. */
export const QUIET_MS = 60_000;
/** The hold after a 429 or 503 that says nothing of how long to wait; doubled while they continue. */
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;
/** The pace, when nothing says what it should be: one call a second, then adapted. */
const UNKNOWN_INTERVAL_MS = 1000;
/** How much slower than its base pace a connection may be made by 429s that came in spite of it. */
const MAX_SLOWDOWN = 64;
/** Each success takes back 3 % of the slowdown. */
const SPEEDUP = 0.97;
/** With no stated or documented limit, the adapted pace may grow to 20 calls a second. */
const FASTEST_UNKNOWN = 0.05;
/** The longest window inferred from a reset time. */
const MAX_WINDOW_MS = 24 * 3600 * 1000;

export interface GovernorState {
  /** The platform's id, for its documented pace. */
  platform: string;
  /** No call goes before this time: a Retry-After, or a window with nothing left. */
  holdUntil: number;
  /** The earliest time the next call may go (the pacing, a GCRA's theoretical arrival time). */
  nextSlot: number;
  /** The limit the platform's own answers stated. */
  learned?: Pace;
  /** The base pace's multiplier: doubled by a 429 that came in spite of the pace, eased by successes. */
  slowdown: number;
  /** The hold after the next 429 or 503 without Retry-After. */
  backoffMs: number;
  /** The last answer that was a 429 or 503 or showed little left. */
  lastLimitedAt: number;
}

export interface AcquireAnswer {
  /** Whether the caller has a slot: it may go after `waitMs`. Otherwise the wait would exceed its bound; nothing was reserved. */
  granted: boolean;
  waitMs: number;
  /** Until when callers should keep asking the governor before they call. */
  governUntil: number;
}

/** What a caller tells of one answer: the facts read from its fields, and whether the call had waited for a slot. */
export interface Report extends LimitSignal {
  paced: boolean;
}

const fresh = (platform: string): GovernorState => ({
  platform,
  holdUntil: 0,
  nextSlot: 0,
  slowdown: 1,
  backoffMs: FIRST_BACKOFF_MS,
  lastLimitedAt: 0,
});

/**
 * The rate governor of one connection (DESIGN §5, "Platform rate limits"), shared by every caller
 * in the deployment: runs, agents, chat, MCP and the dashboard all reach a connection's platform
 * through its one object. It hands out slots (`acquire`) and learns from answers (`report`).
 *
 * - After a 429 or 503 it holds every call until Retry-After has passed (1 s, doubling while
 *   they continue, when the answer does not say).
 * - It paces calls at 90 % of the limit the platform's answers state (RateLimit, X-RateLimit-*),
 *   else of the platform's documented limit (defaults.ts), else at one a second adapted to
 *   successes and 429s. Slots are spaced by the pace (a GCRA with no burst): a call's slot is
 *   the later of now, the hold and the previous slot plus the interval.
 * - `acquire` only computes the slot: the caller sleeps until it, so the object is never held.
 *   It runs one call at a time, so two callers never get the same slot.
 * - The state is kept in the object's storage: an eviction or a restart forgets no hold.
 */
export class ConnectionGovernor extends DurableObject<Env> {
  private state: GovernorState;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.state = ctx.storage.kv.get<GovernorState>("state") ?? fresh("");
  }

  /** The next slot, if it is no more than `maxWaitMs` away. */
  acquire(platform: string, maxWaitMs: number): AcquireAnswer {
    const now = Date.now();
    const s = this.state;
    s.platform = platform;
    const at = Math.max(now, s.holdUntil, s.nextSlot);
    const waitMs = at - now;
    if (waitMs > maxWaitMs) return { granted: false, waitMs, governUntil: this.governUntil() };
    s.nextSlot = at + this.interval();
    this.save();
    return { granted: true, waitMs, governUntil: this.governUntil() };
  }

  /** Learns from one answer of the platform. */
  report(platform: string, report: Report): { governUntil: number } {
    const now = Date.now();
    const s = this.state;
    s.platform = platform;
    // A refusal that arrives while a hold is on belongs to the burst that caused the hold.
    const heldAlready = s.holdUntil > now;
    if (report.limit !== undefined && report.limit > 0) {
      const windowMs = report.windowMs ?? this.inferredWindow(report, now);
      if (windowMs !== undefined) s.learned = { limit: report.limit, windowMs };
    }
    if (report.status === 429 || report.status === 503) {
      s.lastLimitedAt = now;
      let until = report.retryAt;
      if (until === undefined && report.remaining === 0 && report.resetAt !== undefined && report.resetAt > now) until = report.resetAt;
      if (until === undefined) {
        until = now + s.backoffMs;
        if (!heldAlready) s.backoffMs = Math.min(s.backoffMs * 2, MAX_BACKOFF_MS);
      }
      s.holdUntil = Math.max(s.holdUntil, until);
      // Refused although it waited for its slot: the pace is too fast for what is left of the
      // limit (another client may share it). Once per hold, not once per refused call.
      if (report.paced && !heldAlready) s.slowdown = Math.min(s.slowdown * 2, MAX_SLOWDOWN);
    } else {
      if (report.status < 400) {
        s.backoffMs = FIRST_BACKOFF_MS;
        s.slowdown = Math.max(this.pace() ? 1 : FASTEST_UNKNOWN, s.slowdown * SPEEDUP);
      }
      if (isLimited(report)) s.lastLimitedAt = now;
      // Nothing left in this window: nobody calls before it ends.
      if (report.remaining === 0 && report.resetAt !== undefined && report.resetAt > now) s.holdUntil = Math.max(s.holdUntil, report.resetAt);
    }
    this.save();
    return { governUntil: this.governUntil() };
  }

  /** The state, for tests and diagnostics. */
  inspect(): GovernorState {
    return { ...this.state };
  }

  /** The stated limit, else the documented one. */
  private pace(): Pace | undefined {
    return this.state.learned ?? PLATFORM_PACES[this.state.platform];
  }

  /** Milliseconds between two calls. */
  private interval(): number {
    const pace = this.pace();
    const base = pace ? pace.windowMs / pace.limit / SAFETY : UNKNOWN_INTERVAL_MS;
    return base * this.state.slowdown;
  }

  /**
   * A window from a reset time when the answer does not state it (X-RateLimit-Reset): at least the
   * time to the reset, rounded up to a second; the longest seen for the same limit.
   */
  private inferredWindow(report: Report, now: number): number | undefined {
    if (report.resetAt === undefined) return undefined;
    const seen = Math.min(MAX_WINDOW_MS, Math.max(1000, Math.ceil((report.resetAt - now) / 1000) * 1000));
    const learned = this.state.learned;
    return learned && learned.limit === report.limit ? Math.max(learned.windowMs, seen) : seen;
  }

  private governUntil(): number {
    const s = this.state;
    return Math.max(s.lastLimitedAt + QUIET_MS, s.holdUntil, s.nextSlot);
  }

  private save(): void {
    this.ctx.storage.kv.put("state", this.state);
  }
}
