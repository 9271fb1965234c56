import type { ApiKey, Grant } from "../db/schema";
import { IsolateCache } from "../core/isolate-cache";

/**
 * Credentials as this isolate last read them (see IsolateCache: fresh 5 s, stale-while-revalidate
 * to 10 s). Revoking in this isolate forgets the record at once (`forget…` below); other isolates
 * notice within MAX_AGE_MS, the stated bound; test/auth/credential-cache.test.ts checks both.
 * Expiry is checked on every request from the cached record, never cached as "valid".
 */
export { MAX_AGE_MS } from "../core/isolate-cache";

/** API keys by the hash of their secret (null: no such key). */
export const apiKeyRecords = new IsolateCache<ApiKey | null>();

/** Grants (behind login and OAuth tokens) by id, with the state of the app they were issued to. */
export interface GrantRecord {
  grant: Grant;
  appId: number | null;
  appRevokedAt: Date | null;
}
export const grantRecords = new IsolateCache<GrantRecord | null>();

/**
 * Whether the credential behind long-running work may still act (credential-status.ts), by
 * credential id: why it may not (null: it may), and when it expires. Every webhook delivery and
 * every run asks, so the answer is cached like the records above.
 */
export interface CredentialState {
  revoked: string | null;
  expiresAt: number | null;
}
export const credentialStates = new IsolateCache<CredentialState>();

/** Called by every revocation, so it takes effect in this isolate at once (revocations are rare: all states are read again). */
export function forgetApiKey(id: number) {
  apiKeyRecords.forget((_, key) => key?.id === id);
  credentialStates.forget(() => true);
}
export function forgetGrants(pick: (grant: Grant) => boolean) {
  grantRecords.forget((_, record) => Boolean(record && pick(record.grant)));
  credentialStates.forget(() => true);
}
