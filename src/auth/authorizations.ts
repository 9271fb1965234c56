import { forgetGrants } from "./credential-cache";
import type { ServiceContext } from "../core/context";
import { and, eq, gt, inArray, isNotNull, isNull, max } from "drizzle-orm";
import { authorizationCodes, grants, oauthApps, refreshTokens } from "../db/schema";
import { notFound } from "../core/errors";
import { readScopes } from "../core/scopes";

/** An OAuth app the user approved on the consent page, as GET /v1/auth/authorizations shows it. */
export interface Authorization {
  client_id: string;
  name: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
}

/** Live authorization-code grants of the user, one entry per app (the union of their scopes). */
export async function listAuthorizations(ctx: ServiceContext): Promise<Authorization[]> {
  const live = and(
    eq(grants.userId, ctx.actor.id),
    eq(grants.kind, "authorization_code"),
    isNull(grants.revokedAt),
    isNotNull(grants.clientId),
    isNull(oauthApps.revokedAt),
  );
  const rows = await ctx.db
    .select({ clientId: grants.clientId, name: oauthApps.name, scopes: grants.scopes, createdAt: grants.createdAt, grantId: grants.id })
    .from(grants)
    .innerJoin(oauthApps, eq(oauthApps.clientId, grants.clientId))
    .where(live)
    .all();
  if (rows.length === 0) return [];
  // An app is "used" each time it gets tokens: at approval and at every refresh.
  const lastIssued = await ctx.db
    .select({ grantId: refreshTokens.grantId, at: max(refreshTokens.createdAt) })
    .from(refreshTokens)
    .where(
      inArray(
        refreshTokens.grantId,
        rows.map((r) => r.grantId),
      ),
    )
    .groupBy(refreshTokens.grantId)
    .all();
  const usedAt = new Map(lastIssued.map((r) => [r.grantId, r.at ? r.at.getTime() : 0]));

  const byApp = new Map<string, { name: string; scopes: Set<string>; created: number; used: number }>();
  for (const row of rows) {
    const entry = byApp.get(row.clientId!) ?? { name: row.name, scopes: new Set<string>(), created: Infinity, used: 0 };
    for (const scope of readScopes(row.scopes)) entry.scopes.add(scope);
    entry.created = Math.min(entry.created, row.createdAt.getTime());
    entry.used = Math.max(entry.used, usedAt.get(row.grantId) ?? 0);
    byApp.set(row.clientId!, entry);
  }
  return [...byApp.entries()]
    .map(([clientId, e]) => ({
      client_id: clientId,
      name: e.name,
      scopes: [...e.scopes].sort(),
      created_at: new Date(e.created).toISOString(),
      last_used_at: e.used ? new Date(e.used).toISOString() : null,
    }))
    .sort((a, b) => b.created_at.localeCompare(a.created_at));
}

/**
 * Withdraws the user's approval of an app: every grant of that app for this user is revoked,
 * which kills its access and refresh tokens at once and stops agents it deployed. Codes the
 * app has not exchanged yet are expired too, or one approved a minute ago would bring the
 * access straight back.
 */
export async function revokeAuthorization(ctx: ServiceContext, clientId: string): Promise<void> {
  const now = new Date();
  await ctx.db
    .update(authorizationCodes)
    // A code counts as expired once its expiry lies in the past, so set it just before now.
    .set({ expiresAt: new Date(now.getTime() - 1) })
    .where(
      and(
        eq(authorizationCodes.userId, ctx.actor.id),
        eq(authorizationCodes.clientId, clientId),
        isNull(authorizationCodes.usedAt),
        gt(authorizationCodes.expiresAt, now),
      ),
    );
  const revoked = await ctx.db
    .update(grants)
    .set({ revokedAt: now })
    .where(and(eq(grants.userId, ctx.actor.id), eq(grants.clientId, clientId), eq(grants.kind, "authorization_code"), isNull(grants.revokedAt)))
    .returning({ id: grants.id });
  forgetGrants((grant) => grant.userId === ctx.actor.id && grant.clientId === clientId);
  if (revoked.length === 0) throw notFound("Authorization");
}
