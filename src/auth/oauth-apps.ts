import { and, count, desc, eq, isNull, lt } from "drizzle-orm";
import type { Environment } from "../core/config";
import type { Db } from "../db/client";
import { grants, oauthApps, type OAuthApp } from "../db/schema";
import { HubError, notFound } from "../core/errors";
import { constantTimeEqual, hashSecret, randomToken } from "./crypto";
import { formatScopes, readScopes, type Scope } from "../core/scopes";

export const MAX_APPS_PER_USER = 50;

export async function createOAuthApp(
  db: Db,
  input: { userId: number; name: string; redirectUris: string[]; scopes: Scope[] },
): Promise<{ app: OAuthApp; clientSecret: string }> {
  const [active] = await db
    .select({ n: count() })
    .from(oauthApps)
    .where(and(eq(oauthApps.userId, input.userId), isNull(oauthApps.revokedAt)));
  if ((active?.n ?? 0) >= MAX_APPS_PER_USER) {
    throw new HubError("quota_exceeded", `An account can register at most ${MAX_APPS_PER_USER} OAuth apps; delete one first.`);
  }
  const clientSecret = `ahs_${randomToken(32)}`;
  const [app] = await db
    .insert(oauthApps)
    .values({
      clientId: `ahc_${randomToken(16)}`,
      clientSecretHash: await hashSecret(clientSecret),
      userId: input.userId,
      name: input.name,
      redirectUris: input.redirectUris,
      scopes: formatScopes(input.scopes),
    })
    .returning();
  return { app: app!, clientSecret };
}

/** Newest first; `beforeId` continues after a previous page. Fetches `limit` rows. */
export const listOAuthApps = (db: Db, userId: number, limit: number, beforeId?: number) =>
  db
    .select()
    .from(oauthApps)
    .where(and(eq(oauthApps.userId, userId), isNull(oauthApps.revokedAt), beforeId ? lt(oauthApps.id, beforeId) : undefined))
    .orderBy(desc(oauthApps.id))
    .limit(limit)
    .all();

/** Deleting an app also revokes every grant made to it, so its tokens stop at once. */
export async function deleteOAuthApp(db: Db, userId: number, clientId: string): Promise<void> {
  const deleted = await db
    .update(oauthApps)
    .set({ revokedAt: new Date() })
    .where(and(eq(oauthApps.clientId, clientId), eq(oauthApps.userId, userId), isNull(oauthApps.revokedAt)))
    .returning({ id: oauthApps.id });
  if (deleted.length === 0) throw notFound("OAuth app");
  await db
    .update(grants)
    .set({ revokedAt: new Date() })
    .where(and(eq(grants.clientId, clientId), isNull(grants.revokedAt)));
}

export async function findActiveApp(db: Db, clientId: string): Promise<OAuthApp | undefined> {
  return db
    .select()
    .from(oauthApps)
    .where(and(eq(oauthApps.clientId, clientId), isNull(oauthApps.revokedAt)))
    .get();
}

/** Client authentication for the token endpoint: the app, if the id and secret match. */
export async function authenticateClient(db: Db, clientId: string, clientSecret: string): Promise<OAuthApp | undefined> {
  const app = await findActiveApp(db, clientId);
  if (!app) return undefined;
  return constantTimeEqual(await hashSecret(clientSecret), app.clientSecretHash) ? app : undefined;
}

/**
 * Redirect URIs must be absolute https URLs without a fragment; plain http is allowed only for
 * loopback addresses (RFC 8252 §7.3), and on non-production deployments for any host.
 */
export function redirectUriProblem(uri: string, environment: Environment): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "Must be an absolute URL.";
  }
  if (url.hash || uri.includes("#")) return "Must not contain a fragment.";
  if (url.username || url.password) return "Must not contain credentials.";
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:") {
    const loopback = ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname);
    if (loopback || environment !== "production") return undefined;
    return "Plain http is only allowed for loopback addresses.";
  }
  return "Must use https (or http for a loopback address).";
}

export function presentOAuthApp(app: OAuthApp) {
  return {
    client_id: app.clientId,
    name: app.name,
    redirect_uris: app.redirectUris,
    scopes: readScopes(app.scopes),
    created_at: app.createdAt.toISOString(),
  };
}
