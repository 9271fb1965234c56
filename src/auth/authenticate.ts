import { eq } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import type { Config } from "../core/config";
import type { Db } from "../db/client";
import { apiKeys, grants, oauthApps } from "../db/schema";
import type { AppEnv } from "../http/app-env";
import { HubError } from "../core/errors";
import { findApiKeyByHash, keyModeOf, modeForEnvironment } from "./api-keys";
import { apiKeyRecords, grantRecords } from "./credential-cache";
import { hashSecret } from "../lib/crypto";
import { invalidToken, verifyAccessToken } from "./jwt";
import type { Principal } from "../core/principal";
import { contextForPrincipal } from "../core/context";
import { readScopes } from "../core/scopes";
import { acceptedAudiences, type ResourceDoor } from "./resource";
import { actingWorkspace, WORKSPACE_HEADER } from "../workspaces/resolve";

const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Resolves the bearer credential (API key, login JWT or OAuth access token) to a Principal.
 * Every failure is a 401 with an RFC 6750 WWW-Authenticate header that says why. A JWT must be
 * for this door (its audience, RFC 8707): `/v1` takes API tokens, `/mcp` its own and API tokens.
 */
export const authenticateFor = (door: ResourceDoor) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const header = c.req.header("Authorization");
    const match = header?.match(/^Bearer[ ]+([^\s]+)\s*$/i);
    if (!match) {
      throw new HubError("unauthorized", header ? "The Authorization header must be `Bearer <credential>`." : "A Bearer credential is required.", {
        challenge: `Bearer realm="agent-automation-hub"`,
      });
    }
    const credential = match[1]!;
    const config = c.get("config");
    const waitUntil = (work: Promise<unknown>) => c.executionCtx.waitUntil(work);
    const principal = keyModeOf(credential)
      ? await principalFromApiKey(c.get("db"), config, credential, waitUntil)
      : await principalFromJwt(c.get("db"), config, credential, acceptedAudiences(config, new URL(c.req.url).origin, door), waitUntil);
    const workspace = await actingWorkspace(c.get("db"), principal, c.req.header(WORKSPACE_HEADER));
    c.set("principal", principal);
    c.set("ctx", contextForPrincipal(c.get("runtime"), principal, workspace));
    await next();
  });

/** The `/v1` API's authentication. */
export const authenticate = authenticateFor("api");

async function principalFromApiKey(db: Db, config: Config, secret: string, waitUntil: (work: Promise<unknown>) => void): Promise<Principal> {
  const expected = modeForEnvironment(config.environment);
  if (keyModeOf(secret) !== expected) {
    throw invalidToken(
      expected === "live"
        ? "A sandbox API key (ahk_test_) cannot be used against production; use a production key (ahk_live_)."
        : "A production API key (ahk_live_) cannot be used against a sandbox deployment; use a sandbox key (ahk_test_).",
    );
  }
  const hash = await hashSecret(secret);
  const key = await apiKeyRecords.get(hash, async () => (await findApiKeyByHash(db, hash)) ?? null, waitUntil);
  if (!key) throw invalidToken("The API key is not valid.");
  if (key.revokedAt) throw invalidToken("The API key has been revoked.");
  if (key.expiresAt && key.expiresAt.getTime() <= Date.now()) throw invalidToken("The API key has expired.");

  const now = Date.now();
  if (!key.lastUsedAt || now - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    // Off the request path, and at most once a minute per key, so reads stay cheap.
    apiKeyRecords.update(hash, (cached) => {
      if (cached) cached.lastUsedAt = new Date(now);
    });
    waitUntil(
      db
        .update(apiKeys)
        .set({ lastUsedAt: new Date(now) })
        .where(eq(apiKeys.id, key.id))
        .run(),
    );
  }
  return { userId: key.userId, scopes: readScopes(key.scopes), kind: "api_key", credentialId: `key_${key.id}`, clientId: null, workspaceId: key.workspaceId };
}

async function principalFromJwt(db: Db, config: Config, token: string, audiences: string[], waitUntil: (work: Promise<unknown>) => void): Promise<Principal> {
  const claims = await verifyAccessToken(config, token, audiences);
  // One indexed read (usually cached): the grant must still be live, and so must its app.
  const row = await grantRecords.get(
    claims.gid,
    async () =>
      (await db
        .select({ grant: grants, appRevokedAt: oauthApps.revokedAt, appId: oauthApps.id })
        .from(grants)
        .leftJoin(oauthApps, eq(oauthApps.clientId, grants.clientId))
        .where(eq(grants.id, claims.gid))
        .get()) ?? null,
    waitUntil,
  );
  if (!row || String(row.grant.userId) !== claims.sub) throw invalidToken("The access token is not valid.");
  if (row.grant.revokedAt) throw invalidToken("The access token has been revoked.");
  if (row.grant.clientId && (!row.appId || row.appRevokedAt)) throw invalidToken("The OAuth app of this token has been deleted.");
  const granted = readScopes(row.grant.scopes);
  return {
    userId: row.grant.userId,
    // A token never carries more than its grant, whatever the claim says.
    scopes: readScopes(claims.scope).filter((s) => granted.includes(s)),
    kind: row.grant.clientId ? "oauth" : "session",
    credentialId: row.grant.id,
    clientId: row.grant.clientId,
    workspaceId: null,
  };
}
