import { forgetGrants } from "./credential-cache";
import type { ServiceContext } from "../core/context";
import { and, desc, eq, isNull, lt } from "drizzle-orm";
import type { Environment } from "../core/config";
import type { Db } from "../db/client";
import { grants, oauthApps, type OAuthApp } from "../db/schema";
import { insertWithinQuota } from "../db/quota";
import { HubError, notFound } from "../core/errors";
import { constantTimeEqual, hashSecret, randomToken } from "../lib/crypto";
import { formatScopes, isSubset, readScopes, type Scope } from "../core/scopes";

export const MAX_APPS_PER_USER = 50;

/**
 * Registers an app for the caller: each redirect URI must be allowed on this deployment, and the
 * app may not be allowed scopes the calling credential lacks. The secret is returned once.
 */
export async function createOAuthApp(
  ctx: ServiceContext,
  input: { name: string; redirectUris: string[]; scopes: Scope[] },
): Promise<{ app: OAuthApp; clientSecret: string }> {
  const errors = input.redirectUris.flatMap((uri, i) => {
    const problem = redirectUriProblem(uri, ctx.config.environment);
    return problem ? [{ location: "body", field: `redirect_uris.${i}`, message: problem }] : [];
  });
  if (errors.length) throw new HubError("validation_failed", "A redirect URI is not allowed.", { errors });
  if (!isSubset(input.scopes, ctx.scopes)) throw new HubError("insufficient_scope", "An app cannot be allowed scopes the calling credential does not have.");
  const { db } = ctx;
  const held = and(eq(oauthApps.userId, ctx.actor.id), isNull(oauthApps.revokedAt))!;
  const full = () => new HubError("quota_exceeded", `An account can register at most ${MAX_APPS_PER_USER} OAuth apps; delete one first.`);
  if ((await db.$count(oauthApps, held)) >= MAX_APPS_PER_USER) throw full();
  const clientSecret = `ahs_${randomToken(32)}`;
  const insert = db
    .insert(oauthApps)
    .values({
      clientId: `ahc_${randomToken(16)}`,
      clientSecretHash: await hashSecret(clientSecret),
      userId: ctx.actor.id,
      name: input.name,
      redirectUris: [...new Set(input.redirectUris)],
      scopes: formatScopes(input.scopes),
    })
    .returning();
  const app = await insertWithinQuota<OAuthApp>(db, insert, oauthApps, held, MAX_APPS_PER_USER);
  if (!app) throw full();
  return { app, clientSecret };
}

/** Newest first; `beforeId` continues after a previous page. Fetches `limit` rows. */
export const listOAuthApps = (ctx: ServiceContext, limit: number, beforeId?: number) =>
  ctx.db
    .select()
    .from(oauthApps)
    .where(and(eq(oauthApps.userId, ctx.actor.id), isNull(oauthApps.revokedAt), beforeId ? lt(oauthApps.id, beforeId) : undefined))
    .orderBy(desc(oauthApps.id))
    .limit(limit)
    .all();

/** Deleting an app also revokes every grant made to it, so its tokens stop at once. */
export async function deleteOAuthApp(ctx: ServiceContext, clientId: string): Promise<void> {
  const deleted = await ctx.db
    .update(oauthApps)
    .set({ revokedAt: new Date() })
    .where(and(eq(oauthApps.clientId, clientId), eq(oauthApps.userId, ctx.actor.id), isNull(oauthApps.revokedAt)))
    .returning({ id: oauthApps.id });
  if (deleted.length === 0) throw notFound("OAuth app");
  await ctx.db
    .update(grants)
    .set({ revokedAt: new Date() })
    .where(and(eq(grants.clientId, clientId), isNull(grants.revokedAt)));
  forgetGrants((grant) => grant.clientId === clientId);
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
  if (!app?.clientSecretHash) return undefined;
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
