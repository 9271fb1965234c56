import { and, eq, isNotNull, lt, or } from "drizzle-orm";
import type { Db } from "../db/client";
import { authorizationCodes, grants, refreshTokens } from "../db/schema";
import { ACCESS_TOKEN_TTL_SECONDS } from "../auth/jwt";

/** Used codes stay for a day, so that a replay within that day is still recognised as reuse. */
const USED_CODE_RETENTION_MS = 24 * 3600 * 1000;

/**
 * Runs on the every-minute cron: deletes authorization codes and refresh tokens that can never
 * be used again, and client-credentials grants older than their last access token.
 */
export async function removeExpiredCredentials(db: Db, now = Date.now()): Promise<{ codes: number; refreshTokens: number; grants: number }> {
  const codes = await db
    .delete(authorizationCodes)
    .where(
      or(
        lt(authorizationCodes.expiresAt, new Date(now - USED_CODE_RETENTION_MS)),
        and(isNotNull(authorizationCodes.usedAt), lt(authorizationCodes.usedAt, new Date(now - USED_CODE_RETENTION_MS))),
      ),
    )
    .returning({ id: authorizationCodes.codeHash });
  const tokens = await db.delete(refreshTokens).where(lt(refreshTokens.expiresAt, new Date(now))).returning({ id: refreshTokens.tokenHash });
  const oldGrants = await db
    .delete(grants)
    .where(and(eq(grants.kind, "client_credentials"), lt(grants.createdAt, new Date(now - ACCESS_TOKEN_TTL_SECONDS * 1000 - 60_000))))
    .returning({ id: grants.id });
  return { codes: codes.length, refreshTokens: tokens.length, grants: oldGrants.length };
}
