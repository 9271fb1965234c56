import { WORKSPACE_CREDENTIAL } from "../core/context";
import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { apiKeys, grants, oauthApps } from "../db/schema";
import { type CredentialState, credentialStates } from "./credential-cache";

/**
 * Long-running work (agents, queued and delayed executions) acts with the credential that
 * started it. This tells whether that credential may still act, and if not, why.
 *
 * - An API key (`key_<id>`) stops working when it is revoked or expires.
 * - An OAuth grant stops working when it is revoked (the person revoked the app, a refresh token
 *   was replayed) or its app is deleted.
 * - A first-party login grant (API login or browser sign-in) belongs to the user: work it
 *   started survives logout.
 *
 * Answers null while the credential may act.
 */
export async function credentialRevocation(
  db: Db,
  credentialId: string,
  refreshInBackground: (work: Promise<unknown>) => void = (work) => void work.catch(() => undefined),
): Promise<string | null> {
  // Cached per isolate (credential-cache.ts): a revocation here is seen at once, elsewhere within
  // 10 s, the bound REST authentication states too. Expiry is checked on every call.
  const state = await credentialStates.get(credentialId, () => readCredentialState(db, credentialId), refreshInBackground);
  if (state.revoked) return state.revoked;
  if (state.expiresAt !== null && state.expiresAt <= Date.now()) return "the API key it runs with has expired.";
  return null;
}

async function readCredentialState(db: Db, credentialId: string): Promise<CredentialState> {
  const state = (revoked: string | null, expiresAt: Date | null = null) => ({ revoked, expiresAt: expiresAt?.getTime() ?? null });
  // Work handed over to its workspace when its member left: it lasts as long as the workspace.
  if (credentialId === WORKSPACE_CREDENTIAL) return state(null);
  if (credentialId.startsWith("key_")) {
    const id = Number(credentialId.slice(4));
    const key = Number.isInteger(id)
      ? await db.select({ revokedAt: apiKeys.revokedAt, expiresAt: apiKeys.expiresAt }).from(apiKeys).where(eq(apiKeys.id, id)).get()
      : undefined;
    if (!key || key.revokedAt) return state("the API key it runs with was revoked.");
    return state(null, key.expiresAt);
  }
  const row = await db
    .select({ kind: grants.kind, revokedAt: grants.revokedAt, clientId: grants.clientId, appId: oauthApps.id, appRevokedAt: oauthApps.revokedAt })
    .from(grants)
    .leftJoin(oauthApps, eq(oauthApps.clientId, grants.clientId))
    .where(eq(grants.id, credentialId))
    .get();
  // Grants that work still depends on are kept by the clean-up, so a missing one was revoked.
  if (!row) return state("the authorization it runs with was revoked.");
  if (row.kind === "login" || row.kind === "browser") return state(null);
  if (row.clientId && (!row.appId || row.appRevokedAt)) return state("the OAuth app it runs with was deleted.");
  if (row.revokedAt) return state("the OAuth authorization it runs with was revoked.");
  return state(null);
}
