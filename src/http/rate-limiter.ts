import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";

export interface RateLimitResult {
  /** The counter's name, used as the policy name in the RateLimit headers. */
  name: string;
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
}

export interface CounterSpec {
  name: string;
  limit: number;
}

/**
 * One object per rate-limited subject (a user, or a client address), holding fixed-window
 * counters for that subject: e.g. all of a user's requests, each of their credentials, their
 * tool calls. A Durable Object runs one call at a time, so counting needs no locks; counters live
 * in memory because losing them on eviction only ever forgives, never blocks.
 */
export class RateLimiter extends DurableObject<Env> {
  private windowStart = 0;
  private counts = new Map<string, number>();

  /**
   * Counts one hit against every named counter, all or nothing: if any is exhausted none is
   * charged. `cost` 0 only reads the counters.
   */
  hit(counters: CounterSpec[], windowSeconds: number, cost = 1): RateLimitResult[] {
    return this.lease(counters, windowSeconds, cost, cost).results;
  }

  /**
   * Charges between `need` and `want` hits against every counter at once (as many as all of them
   * have room for) and returns how many were granted: an isolate spends the extra ones locally,
   * so the counters are never exceeded while most requests skip this round trip. Fewer than
   * `need` available: nothing is charged and the exhausted counters say so. `need` 0 only reads.
   */
  lease(counters: CounterSpec[], windowSeconds: number, need: number, want: number): { granted: number; results: RateLimitResult[]; windowStart: number } {
    const now = Date.now();
    const windowMs = windowSeconds * 1000;
    const start = this.windowOf(now, windowMs);
    const resetSeconds = Math.max(1, Math.ceil((start + windowMs - now) / 1000));
    const used = (name: string) => this.counts.get(name) ?? 0;
    const room = Math.min(...counters.map(({ name, limit }) => limit - used(name)));
    // A read (need 0) passes while every counter has room left; a hit passes if it fits entirely.
    const fits = ({ name, limit }: CounterSpec) => (need === 0 ? used(name) < limit : used(name) + need <= limit);
    const exhausted = new Set(counters.filter((counter) => !fits(counter)).map((counter) => counter.name));
    const granted = exhausted.size === 0 ? Math.max(need, Math.min(want, room)) : 0;
    for (const { name } of counters) this.counts.set(name, used(name) + granted);
    const results = counters.map(({ name, limit }) => ({
      name,
      limit,
      allowed: !exhausted.has(name),
      remaining: Math.max(0, limit - used(name)),
      resetSeconds,
    }));
    return { granted, results, windowStart: start };
  }

  /**
   * Takes back `cost` hits charged in the window that began at `windowStart` (a sign-in that
   * succeeded gives its hit back). Only within that window: a later window starts from zero, so
   * forgiving there would let more than the limit through.
   */
  giveBack(counters: string[], windowSeconds: number, windowStart: number, cost = 1): void {
    if (this.windowOf(Date.now(), windowSeconds * 1000) !== windowStart) return;
    for (const name of counters) this.counts.set(name, Math.max(0, (this.counts.get(name) ?? 0) - cost));
  }

  /** The start of the window `now` falls in; counts of an earlier window are dropped. */
  private windowOf(now: number, windowMs: number): number {
    const start = now - (now % windowMs);
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.counts.clear();
    }
    return start;
  }
}
