import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../db/client";
import { authorizationCodes } from "../db/schema";
import { base64url, hashSecret, randomToken, sha256 } from "../lib/crypto";
import { revokeGrant } from "./grants";

export const CODE_TTL_MS = 10 * 60 * 1000;

export async function createAuthorizationCode(
  db: Db,
  input: { clientId: string; userId: number; redirectUri: string; scopes: string; codeChallenge: string | null; resource: string | null },
): Promise<string> {
  const code = `ahz_${randomToken(32)}`;
  await db.insert(authorizationCodes).values({
    codeHash: await hashSecret(code),
    clientId: input.clientId,
    userId: input.userId,
    redirectUri: input.redirectUri,
    scopes: input.scopes,
    codeChallenge: input.codeChallenge,
    resource: input.resource,
    expiresAt: new Date(Date.now() + CODE_TTL_MS),
  });
  return code;
}

export type CodeRow = typeof authorizationCodes.$inferSelect;

export async function findAuthorizationCode(db: Db, code: string): Promise<CodeRow | undefined> {
  return db
    .select()
    .from(authorizationCodes)
    .where(eq(authorizationCodes.codeHash, await hashSecret(code)))
    .get();
}

/**
 * Marks the code used and records the grant made from it, in one conditional write, so that
 * of two concurrent exchanges exactly one wins. Returns false if the code was already used.
 */
export async function claimAuthorizationCode(db: Db, codeHash: string, grantId: string): Promise<boolean> {
  const claimed = await db
    .update(authorizationCodes)
    .set({ usedAt: new Date(), grantId })
    .where(and(eq(authorizationCodes.codeHash, codeHash), isNull(authorizationCodes.usedAt)))
    .returning({ codeHash: authorizationCodes.codeHash });
  return claimed.length === 1;
}

/** A code presented twice was stolen or replayed: the tokens issued from it are revoked. */
export async function punishCodeReuse(db: Db, codeHash: string): Promise<void> {
  const row = await db.select({ grantId: authorizationCodes.grantId }).from(authorizationCodes).where(eq(authorizationCodes.codeHash, codeHash)).get();
  if (row?.grantId) await revokeGrant(db, row.grantId);
}

/** RFC 7636 S256: BASE64URL(SHA256(code_verifier)) == code_challenge. */
export async function pkceMatches(verifier: string, challenge: string): Promise<boolean> {
  return base64url(await sha256(verifier)) === challenge;
}

export const PKCE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
export const PKCE_CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;
