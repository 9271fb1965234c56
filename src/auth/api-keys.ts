import { forgetApiKey } from "./credential-cache";
import type { ServiceContext } from "../core/context";
import { and, desc, eq, isNull, lt, sql } from "drizzle-orm";
import { auditStatement } from "../workspaces/audit";
import { memberRole } from "../workspaces/resolve";
import type { Environment } from "../core/config";
import type { Db } from "../db/client";
import { apiKeys, type ApiKey } from "../db/schema";
import { insertWithinQuota } from "../db/quota";
import { HubError, notFound } from "../core/errors";
import { hashSecret, randomToken } from "../lib/crypto";
import { formatScopes, isSubset, readScopes, type Scope } from "../core/scopes";

export type KeyMode = ApiKey["mode"];

/** `ahk_live_` keys work against production, `ahk_test_` keys against sandbox deployments. */
export const KEY_PREFIX: Record<KeyMode, string> = { live: "ahk_live_", test: "ahk_test_" };
export const modeForEnvironment = (environment: Environment): KeyMode => (environment === "production" ? "live" : "test");

export function keyModeOf(token: string): KeyMode | undefined {
  if (token.startsWith(KEY_PREFIX.live)) return "live";
  if (token.startsWith(KEY_PREFIX.test)) return "test";
  return undefined;
}

export const MAX_KEYS_PER_USER = 100;

export interface CreatedKey {
  key: ApiKey;
  secret: string;
}

/**
 * A new key for the caller: its scopes default to, and may not exceed, the calling credential's;
 * its mode follows the deployment (live on production, test elsewhere).
 */
export async function createApiKey(
  ctx: ServiceContext,
  input: { name: string; scopes?: Scope[]; expiresAt?: Date | null; workspaceId?: number | null },
): Promise<CreatedKey> {
  const scopes = input.scopes ?? [...ctx.scopes];
  if (!isSubset(scopes, ctx.scopes)) throw new HubError("insufficient_scope", "A key cannot have scopes the calling credential does not have.");
  if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
    throw new HubError("validation_failed", "expires_at must be in the future.", {
      errors: [{ location: "body", field: "expires_at", message: "Must be in the future." }],
    });
  }
  // A key bound to a workspace acts only there, and so does every key it makes: it cannot mint a
  // credential that reaches the person's other workspaces.
  const bound = ctx.credential.workspaceId ?? null;
  if (bound !== null && input.workspaceId != null && input.workspaceId !== bound) {
    throw new HubError("forbidden", `This key is bound to workspace ${bound}: the keys it creates are bound there too.`);
  }
  const workspaceId = bound ?? input.workspaceId ?? null;
  // The person must belong to it.
  if (workspaceId !== null && workspaceId !== ctx.actor.id && !(await memberRole(ctx.db, workspaceId, ctx.actor.id))) {
    throw new HubError("not_found", `Workspace ${workspaceId} not found, or you are not a member of it.`);
  }
  const mode = modeForEnvironment(ctx.config.environment);
  const { db } = ctx;
  const held = and(eq(apiKeys.userId, ctx.actor.id), isNull(apiKeys.revokedAt))!;
  const full = () => new HubError("quota_exceeded", `An account can hold at most ${MAX_KEYS_PER_USER} active API keys; revoke one first.`);
  if ((await db.$count(apiKeys, held)) >= MAX_KEYS_PER_USER) throw full();
  const secret = `${KEY_PREFIX[mode]}${randomToken(32)}`;
  const keyHash = await hashSecret(secret);
  const insert = db
    .insert(apiKeys)
    .values({
      userId: ctx.actor.id,
      name: input.name,
      mode,
      // Enough to recognise the key in a list, far too little to guess the rest.
      prefix: secret.slice(0, KEY_PREFIX[mode].length + 6),
      keyHash,
      scopes: formatScopes(scopes),
      workspaceId,
      expiresAt: input.expiresAt ?? null,
    })
    .returning();
  const stored = sql`(SELECT ${apiKeys.id} FROM ${apiKeys} WHERE ${apiKeys.keyHash} = ${keyHash})`;
  const audit = auditStatement(
    ctx,
    {
      workspaceId: workspaceId ?? ctx.actor.id,
      action: "api_key.created",
      target: { type: "api_key", id: sql`CAST(${stored} AS TEXT)` },
      detail: { name: input.name, scopes },
    },
    sql`EXISTS ${stored}`,
  );
  const key = await insertWithinQuota<ApiKey>(db, insert, apiKeys, held, MAX_KEYS_PER_USER, [audit]);
  if (!key) throw full();
  return { key, secret };
}

/** Newest first; `beforeId` continues after a previous page. Fetches `limit` rows. */
export function listApiKeys(ctx: ServiceContext, limit: number, beforeId?: number): Promise<ApiKey[]> {
  return ctx.db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, ctx.actor.id), isNull(apiKeys.revokedAt), sameBinding(ctx), beforeId ? lt(apiKeys.id, beforeId) : undefined))
    .orderBy(desc(apiKeys.id))
    .limit(limit)
    .all();
}

export async function revokeApiKey(ctx: ServiceContext, id: number): Promise<void> {
  const key = await ctx.db
    .select({ workspaceId: apiKeys.workspaceId, name: apiKeys.name })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.userId, ctx.actor.id), isNull(apiKeys.revokedAt), sameBinding(ctx)))
    .get();
  if (!key) throw notFound("API key");
  const [revoked] = await ctx.db.batch([
    ctx.db
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.id, id), eq(apiKeys.userId, ctx.actor.id), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id }),
    auditStatement(
      ctx,
      { workspaceId: key.workspaceId ?? ctx.actor.id, action: "api_key.revoked", target: { type: "api_key", id }, detail: { name: key.name } },
      sql`changes() = 1`,
    ),
  ]);
  if (revoked.length === 0) throw notFound("API key");
  forgetApiKey(id);
}

/** A key bound to a workspace lists and revokes only the person's keys bound to the same one. */
const sameBinding = (ctx: ServiceContext) => (ctx.credential.workspaceId != null ? eq(apiKeys.workspaceId, ctx.credential.workspaceId) : undefined);

export function findApiKeyByHash(db: Db, keyHash: string): Promise<ApiKey | undefined> {
  return db.select().from(apiKeys).where(eq(apiKeys.keyHash, keyHash)).get();
}

/** What the API shows of a key: never the secret or its hash. */
export function presentApiKey(key: ApiKey) {
  return {
    id: key.id,
    name: key.name,
    mode: key.mode,
    prefix: key.prefix,
    scopes: readScopes(key.scopes),
    workspace_id: key.workspaceId,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    expires_at: key.expiresAt?.toISOString() ?? null,
  };
}
