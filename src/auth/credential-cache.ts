import type { ApiKey, Grant } from "../db/schema";

/**
 * What this isolate last read about credentials, so most authenticated requests skip the D1
 * lookup (the approach of edge key verifiers: an in-isolate cache, stale-while-revalidate,
 * revocation by event).
 *
 * - A record younger than FRESH_MS is used as is; one younger than MAX_AGE_MS is used while a
 *   fresh read runs in the background; an older one is read again before answering.
 * - Revoking in this isolate forgets the record at once (`forget…` below), so the revocation
 *   takes effect immediately here. Other isolates notice within MAX_AGE_MS (10 s), the stated
 *   bound; test/auth/credential-cache.test.ts checks both.
 * - Expiry is checked on every request from the cached record, never cached as "valid".
 */
export const FRESH_MS = 5_000;
export const MAX_AGE_MS = 10_000;
const MAX_ENTRIES = 20_000;

interface Entry<V> {
  value: V;
  readAt: number;
  refreshing: boolean;
}

export class CredentialCache<V> {
  private entries = new Map<string, Entry<V>>();

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
        refreshInBackground(
          load()
            .then((value) => this.set(key, value))
            .catch(() => {
              entry.refreshing = false;
            }),
        );
      }
      return entry.value;
    }
    const value = await load();
    this.set(key, value);
    return value;
  }

  set(key: string, value: V) {
    // A bound on memory: an isolate serving more distinct credentials simply reads more.
    if (this.entries.size >= MAX_ENTRIES && !this.entries.has(key)) this.entries.clear();
    this.entries.set(key, { value, readAt: Date.now(), refreshing: false });
  }

  /** Forgets every record the predicate picks (a revocation in this isolate). */
  forget(pick: (key: string, value: V) => boolean) {
    for (const [key, entry] of this.entries) if (pick(key, entry.value)) this.entries.delete(key);
  }

  /** Changes a cached record in place (e.g. the last-used stamp just written). */
  update(key: string, change: (value: V) => void) {
    const entry = this.entries.get(key);
    if (entry) change(entry.value);
  }
}

/** API keys by the hash of their secret (null: no such key). */
export const apiKeyRecords = new CredentialCache<ApiKey | null>();

/** Grants (behind login and OAuth tokens) by id, with the state of the app they were issued to. */
export interface GrantRecord {
  grant: Grant;
  appId: number | null;
  appRevokedAt: Date | null;
}
export const grantRecords = new CredentialCache<GrantRecord | null>();

/** Called by every revocation, so it takes effect in this isolate at once. */
export const forgetApiKey = (id: number) => apiKeyRecords.forget((_, key) => key?.id === id);
export const forgetGrants = (pick: (grant: Grant) => boolean) => grantRecords.forget((_, record) => Boolean(record && pick(record.grant)));
