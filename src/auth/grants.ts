import { forgetGrants } from "./credential-cache";
import { and, eq, isNull } from "drizzle-orm";
import type { Config } from "../core/config";
import type { Db } from "../db/client";
import { grants, refreshTokens, type Grant } from "../db/schema";
import { hashSecret, randomToken } from "../lib/crypto";
import { ACCESS_TOKEN_TTL_SECONDS, signAccessToken } from "./jwt";

const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600 * 1000;
/**
 * However often its refresh tokens rotate, a sign-in or an app's authorization ends this long
 * after it was granted; then the person signs in or approves the app again.
 */
export const GRANT_LIFETIME_MS = 90 * 24 * 3600 * 1000;
export const grantEndsAt = (grant: Pick<Grant, "createdAt">) => new Date(grant.createdAt.getTime() + GRANT_LIFETIME_MS);
/**
 * A used token presented again within this many milliseconds is refused without revoking the
 * grant: that is a client retrying (two tabs, a timeout), not a thief replaying.
 */
export const REFRESH_RETRY_GRACE_MS = 10_000;
export const REFRESH_TOKEN_PREFIX = "ahr_";

/** RFC 6749 §5.1 token response. */
export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

export async function createGrant(
  db: Db,
  grant: { userId: number; kind: Grant["kind"]; scopes: string; clientId?: string | null; resource?: string | null },
): Promise<Grant> {
  const [row] = await db
    .insert(grants)
    .values({
      id: `grt_${randomToken(16)}`,
      userId: grant.userId,
      kind: grant.kind,
      scopes: grant.scopes,
      clientId: grant.clientId ?? null,
      resource: grant.resource ?? null,
    })
    .returning();
  return row!;
}

/** Issues an access token, and a refresh token unless the grant is client credentials. */
export async function issueTokens(db: Db, config: Config, grant: Grant, scope = grant.scopes, resource = grant.resource): Promise<TokenResponse> {
  const accessToken = await signAccessToken(config, { userId: grant.userId, scope, grantId: grant.id, clientId: grant.clientId, resource });
  const response: TokenResponse = { access_token: accessToken, token_type: "Bearer", expires_in: ACCESS_TOKEN_TTL_SECONDS, scope };
  if (grant.kind !== "client_credentials") {
    const refreshToken = `${REFRESH_TOKEN_PREFIX}${randomToken(32)}`;
    await db.insert(refreshTokens).values({
      tokenHash: await hashSecret(refreshToken),
      grantId: grant.id,
      expiresAt: new Date(Math.min(Date.now() + REFRESH_TOKEN_TTL_MS, grantEndsAt(grant).getTime())),
    });
    response.refresh_token = refreshToken;
  }
  return response;
}

export async function revokeGrant(db: Db, grantId: string): Promise<void> {
  await db
    .update(grants)
    .set({ revokedAt: new Date() })
    .where(and(eq(grants.id, grantId), isNull(grants.revokedAt)));
  forgetGrants((grant) => grant.id === grantId);
}

export type RefreshOutcome = { ok: true; grant: Grant } | { ok: false; reason: "unknown" | "expired" | "reused" | "revoked" | "wrong_client" };

/**
 * Consumes a refresh token (each is good for one use). Presenting a used token again, after the
 * short retry grace, is treated as theft: the whole grant is revoked, so the thief's and the
 * owner's tokens die.
 */
export async function consumeRefreshToken(
  db: Db,
  token: string,
  clientId: string | null,
  /** Checks the request against the grant before the token is spent; throwing leaves the token usable. */
  beforeSpending: (grant: Grant) => void = () => {},
): Promise<RefreshOutcome> {
  const tokenHash = await hashSecret(token);
  const row = await db
    .select({ token: refreshTokens, grant: grants })
    .from(refreshTokens)
    .innerJoin(grants, eq(grants.id, refreshTokens.grantId))
    .where(eq(refreshTokens.tokenHash, tokenHash))
    .get();
  if (!row) return { ok: false, reason: "unknown" };
  if (row.grant.revokedAt) return { ok: false, reason: "revoked" };
  // Checked before the token is spent, so a caller without the app's secret cannot burn it.
  if (row.grant.clientId !== clientId) return { ok: false, reason: "wrong_client" };
  beforeSpending(row.grant);
  // Mark used only if still unused: of two concurrent uses exactly one wins.
  const claimed = await db
    .update(refreshTokens)
    .set({ usedAt: new Date() })
    .where(and(eq(refreshTokens.tokenHash, tokenHash), isNull(refreshTokens.usedAt)))
    .returning({ tokenHash: refreshTokens.tokenHash });
  if (claimed.length === 0) {
    // usedAt is null when the token was spent by a request racing this one.
    const usedAt = row.token.usedAt?.getTime() ?? Date.now();
    if (Date.now() - usedAt > REFRESH_RETRY_GRACE_MS) await revokeGrant(db, row.grant.id);
    return { ok: false, reason: "reused" };
  }
  if (row.token.expiresAt.getTime() < Date.now() || grantEndsAt(row.grant).getTime() < Date.now()) return { ok: false, reason: "expired" };
  return { ok: true, grant: row.grant };
}
