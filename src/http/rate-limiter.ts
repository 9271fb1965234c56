import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
}

/**
 * One object per rate-limited key (a credential, a user's tool calls, an IP's sign-ins).
 * A Durable Object runs one request at a time, so the fixed-window counter needs no locks;
 * it lives in memory because losing it on eviction only ever forgives, never blocks.
 */
export class RateLimiter extends DurableObject<Env> {
  private windowStart = 0;
  private count = 0;

  hit(limit: number, windowSeconds: number, cost = 1): RateLimitResult {
    const now = Date.now();
    const windowMs = windowSeconds * 1000;
    const start = now - (now % windowMs);
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.count = 0;
    }
    const allowed = this.count + cost <= limit;
    if (allowed) this.count += cost;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - this.count),
      resetSeconds: Math.max(1, Math.ceil((start + windowMs - now) / 1000)),
    };
  }
}
