/**
 * What this isolate last read of a record that changes rarely but is read on every request
 * (credentials, accounts, connections in use, the first page of workflow lists), so most requests
 * skip a D1 read: the approach of edge key verifiers, an in-isolate cache with
 * stale-while-revalidate and forgetting by event.
 *
 * - A record younger than FRESH_MS is used as is; one younger than MAX_AGE_MS is used while a
 *   fresh read runs in the background; an older one is read again before answering.
 * - A change made in this isolate forgets or replaces the record at once, so it takes effect
 *   immediately here. Other isolates notice within MAX_AGE_MS (10 s), the stated bound.
 * - A failed read is never cached: `load` throwing leaves nothing behind.
 */
export const FRESH_MS = 5_000;
export const MAX_AGE_MS = 10_000;
const MAX_ENTRIES = 20_000;

interface Entry<V> {
  value: V;
  readAt: number;
  refreshing: boolean;
  weight: number;
}

/**
 * Bounds on what one cache holds. `weigh` estimates a value's size (say, bytes of JSON): a value
 * heavier than an eighth of `maxWeight` is never kept, and reaching `maxWeight` starts afresh.
 */
export interface IsolateCacheLimits<V> {
  maxEntries?: number;
  maxWeight?: number;
  weigh?: (value: V) => number;
}

export class IsolateCache<V> {
  private entries = new Map<string, Entry<V>>();
  private weight = 0;
  private readonly maxEntries: number;
  private readonly maxWeight: number;
  private readonly weigh: (value: V) => number;

  /**
   * Counts the changes made in this isolate (set, forget, update). A read that was under way during
   * one may have seen the database before it, so its result is used once but not kept.
   */
  private changes = 0;

  constructor(limits: IsolateCacheLimits<V> = {}) {
    this.maxEntries = limits.maxEntries ?? MAX_ENTRIES;
    this.maxWeight = limits.maxWeight ?? Number.POSITIVE_INFINITY;
    this.weigh = limits.weigh ?? (() => 0);
  }

  /**
   * The cached value, read through `load` when missing or too old. `refreshInBackground` keeps a
   * stale-but-young value's refresh off the request path.
   */
  async get(key: string, load: () => Promise<V>, refreshInBackground: (work: Promise<unknown>) => void): Promise<V> {
    const now = Date.now();
    const entry = this.entries.get(key);
    if (entry && now - entry.readAt < FRESH_MS) return entry.value;
    if (entry && now - entry.readAt < MAX_AGE_MS) {
      if (!entry.refreshing) {
        entry.refreshing = true;
        const changesBefore = this.changes;
        refreshInBackground(
          load()
            .then((value) => {
              if (this.changes === changesBefore) this.keep(key, value);
              else entry.refreshing = false;
            })
            .catch(() => {
              entry.refreshing = false;
            }),
        );
      }
      return entry.value;
    }
    const changesBefore = this.changes;
    const value = await load();
    if (this.changes === changesBefore) this.keep(key, value);
    return value;
  }

  /**
   * The cached value however old, without reading: for a caller that checks the value against
   * the database itself when it uses it (see webhook-targets.ts).
   */
  peek(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Replaces a record with what this isolate just wrote (e.g. an account after PATCH /v1/me). */
  set(key: string, value: V) {
    this.changes++;
    this.keep(key, value);
  }

  private keep(key: string, value: V) {
    // Bounds on memory: an isolate serving more distinct records than they allow simply reads more.
    this.drop(key);
    const weight = this.weigh(value);
    if (weight > this.maxWeight / 8) return;
    if (this.entries.size >= this.maxEntries || this.weight + weight > this.maxWeight) {
      this.entries.clear();
      this.weight = 0;
    }
    this.entries.set(key, { value, readAt: Date.now(), refreshing: false, weight });
    this.weight += weight;
  }

  private drop(key: string) {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.weight -= entry.weight;
  }

  /** Forgets one record. */
  forgetKey(key: string) {
    this.changes++;
    this.drop(key);
  }

  /** Forgets every record the predicate picks (a revocation in this isolate). */
  forget(pick: (key: string, value: V) => boolean) {
    this.changes++;
    for (const [key, entry] of this.entries) if (pick(key, entry.value)) this.drop(key);
  }

  /** Changes a cached record in place (e.g. the last-used stamp just written). */
  update(key: string, change: (value: V) => void) {
    this.changes++;
    const entry = this.entries.get(key);
    if (entry) change(entry.value);
  }
}
