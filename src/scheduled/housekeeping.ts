import { and, eq, exists, inArray, isNotNull, lt, not, notExists, notInArray, or } from "drizzle-orm";
import type { Db } from "../db/client";
import { agents, authorizationCodes, executions, grants, oneTimeFlashes, refreshTokens } from "../db/schema";
import { ACCESS_TOKEN_TTL_SECONDS } from "../auth/jwt";
import { SESSION_TTL_SECONDS as BROWSER_SESSION_TTL_SECONDS } from "../auth/browser-session";

/** Used codes stay for a day, so that a replay within that day is still recognised as reuse. */
const USED_CODE_RETENTION_MS = 24 * 3600 * 1000;

/**
 * Runs on the every-minute cron: deletes authorization codes and refresh tokens that can never
 * be used again, and grants none of whose tokens can still work: client-credentials grants older
 * than their access token, revoked grants after a day, and other grants whose refresh tokens
 * have all expired (their last access token was issued with the last refresh token). Also the
 * records of shown flash cookies, once those cookies have expired.
 */
export async function removeExpiredCredentials(db: Db, now = Date.now()): Promise<{ codes: number; refreshTokens: number; grants: number; flashes: number }> {
  const codes = await db
    .delete(authorizationCodes)
    .where(
      or(
        lt(authorizationCodes.expiresAt, new Date(now - USED_CODE_RETENTION_MS)),
        and(isNotNull(authorizationCodes.usedAt), lt(authorizationCodes.usedAt, new Date(now - USED_CODE_RETENTION_MS))),
      ),
    )
    .returning({ id: authorizationCodes.codeHash });
  const tokens = await db
    .delete(refreshTokens)
    .where(lt(refreshTokens.expiresAt, new Date(now)))
    .returning({ id: refreshTokens.tokenHash });
  const accessTokenLifetime = new Date(now - ACCESS_TOKEN_TTL_SECONDS * 1000 - 60_000);
  // A grant that agents or unfinished executions run with stays: it says whether they may still
  // act (a revoked one stops them), long after its own tokens are gone.
  const stillActingFor = or(
    exists(db.select({ one: agents.id }).from(agents).where(eq(agents.credentialId, grants.id))),
    exists(
      db
        .select({ one: executions.id })
        .from(executions)
        .where(and(eq(executions.credentialId, grants.id), inArray(executions.status, ["queued", "running", "waiting"]))),
    ),
  );
  const oldGrants = await db
    .delete(grants)
    .where(
      and(
        not(stillActingFor!),
        or(
          and(eq(grants.kind, "client_credentials"), lt(grants.createdAt, accessTokenLifetime)),
          // A browser sign-in has no tokens: it lasts as long as its cookie.
          and(eq(grants.kind, "browser"), lt(grants.createdAt, new Date(now - BROWSER_SESSION_TTL_SECONDS * 1000))),
          and(isNotNull(grants.revokedAt), lt(grants.revokedAt, new Date(now - USED_CODE_RETENTION_MS))),
          and(
            notInArray(grants.kind, ["client_credentials", "browser"]),
            lt(grants.createdAt, accessTokenLifetime),
            notExists(db.select({ one: refreshTokens.tokenHash }).from(refreshTokens).where(eq(refreshTokens.grantId, grants.id))),
          ),
        ),
      ),
    )
    .returning({ id: grants.id });
  // A shown flash's record is needed only while its cookie could still be shown.
  const flashes = await db
    .delete(oneTimeFlashes)
    .where(lt(oneTimeFlashes.expiresAt, new Date(now)))
    .returning({ id: oneTimeFlashes.id });
  return { codes: codes.length, refreshTokens: tokens.length, grants: oldGrants.length, flashes: flashes.length };
}
