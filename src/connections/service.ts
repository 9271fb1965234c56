import type { ServiceContext } from "../core/context";
import { and, desc, eq, getTableColumns, inArray, lt, sql } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import type { Db } from "../db/client";
import { connections, type Connection } from "../db/schema";
import { insertWithinQuota } from "../db/quota";
import { HubError, notFound, type FieldError } from "../core/errors";
import { randomToken } from "../lib/crypto";
import { MASK, maskConfig, openConfig, sealConfig } from "./config-codec";
import { findPlatform } from "./platforms";
import type { Platform } from "./platforms/types";
import { SecretUnreadable, type SecretBox } from "../core/secret-box";
import { forgetConnectionInUse, noteConnectionChange } from "./in-use";
import { recordAlertEvent } from "../core/alert-events";
import { isOAuthConnection, presentOAuth } from "./oauth-tokens";
import { platformFor } from "./platforms/oauth-spec";
import { presentablePlatform, resolvePlatform } from "./custom/resolve";
import { auditStatement } from "../workspaces/audit";

export const MAX_CONNECTIONS_PER_USER = 200;
export type ConnectionStatus = Connection["status"];

export function requirePlatform(id: string): Platform {
  const platform = findPlatform(id);
  if (!platform) {
    throw new HubError("validation_failed", `Unknown platform "${id}"; GET /v1/connections/platforms lists them.`, {
      errors: [{ location: "body", field: "platform", message: "Unknown platform." }],
    });
  }
  return platform;
}

/** `requirePlatform` where a person is in hand: their custom platforms (DESIGN §5) count too. */
export async function requirePlatformFor(ctx: ServiceContext, id: string): Promise<Platform> {
  return (await resolvePlatform(ctx, id)) ?? requirePlatform(id);
}

/** Validates a config against the platform's schema; field errors name `config.<field>`. */
export function validateConfig(platform: Platform, config: unknown): Record<string, unknown> {
  const result = (platform.config as z.ZodType).safeParse(config);
  if (!result.success) {
    const errors: FieldError[] = result.error.issues.map((issue) => ({
      location: "body",
      field: ["config", ...issue.path.map(String)].join("."),
      message: issue.message,
    }));
    throw new HubError("validation_failed", `The config does not fit the ${platform.name} schema.`, { errors });
  }
  return result.data as Record<string, unknown>;
}

export async function createConnection(ctx: ServiceContext, input: { platform: string; name: string; config: unknown }): Promise<Connection> {
  const platform = await requirePlatformFor(ctx, input.platform);
  if (platform.authKind === "oauth2") {
    throw new HubError(
      "validation_failed",
      `${platform.name} connects with OAuth: start it with POST /v1/connections/oauth/start (or Connect in the dashboard).`,
      {
        errors: [{ location: "body", field: "platform", message: "Connect this platform with OAuth." }],
      },
    );
  }
  const config = validateConfig(platform, input.config);
  return insertConnection(ctx, { platform, name: input.name, config });
}

export const newConnectionUid = () => `con_${randomToken(16)}`;

/**
 * Stores a new connection, its config's secrets sealed, within the per-user quota. OAuth
 * connections (`authMode` "oauth2") start `pending` until their authorization completes.
 */
export async function insertConnection(
  ctx: ServiceContext,
  input: { platform: Platform; name: string; config: Record<string, unknown>; uid?: string; authMode?: Connection["authMode"]; errorMessage?: string },
): Promise<Connection> {
  const { db } = ctx;
  const box = await ctx.secrets();
  const held = eq(connections.userId, ctx.workspace.id);
  const full = () => new HubError("quota_exceeded", `An account can hold at most ${MAX_CONNECTIONS_PER_USER} connections.`);
  if ((await db.$count(connections, held)) >= MAX_CONNECTIONS_PER_USER) throw full();
  const uid = input.uid ?? newConnectionUid();
  const authMode = input.authMode ?? "config";
  const insert = db
    .insert(connections)
    .values({
      uid,
      userId: ctx.workspace.id,
      platform: input.platform.id,
      name: input.name,
      config: await sealConfig(platformFor(input.platform, authMode), input.config, uid, box),
      authMode,
      ...(authMode === "oauth2" ? { status: "pending" as const, errorMessage: input.errorMessage ?? null } : {}),
    })
    .returning();
  const inserted = sql`(SELECT ${connections.id} FROM ${connections} WHERE ${connections.uid} = ${uid})`;
  const audit = auditStatement(
    ctx,
    {
      action: "connection.created",
      target: { type: "connection", id: sql`CAST(${inserted} AS TEXT)` },
      detail: { name: input.name, platform: input.platform.id },
    },
    sql`EXISTS ${inserted}`,
  );
  const row = await insertWithinQuota<Connection>(db, insert, connections, held, MAX_CONNECTIONS_PER_USER, [audit]);
  if (!row) throw full();
  return row;
}

export async function getConnection(ctx: ServiceContext, id: number): Promise<Connection> {
  const row = await ctx.db
    .select()
    .from(connections)
    .where(and(eq(connections.id, id), eq(connections.userId, ctx.workspace.id)))
    .get();
  if (!row) throw notFound("Connection");
  return row;
}

export function listConnections(ctx: ServiceContext, limit: number, beforeId?: number): Promise<Connection[]> {
  return ctx.db
    .select()
    .from(connections)
    .where(and(eq(connections.userId, ctx.workspace.id), beforeId ? lt(connections.id, beforeId) : undefined))
    .orderBy(desc(connections.id))
    .limit(limit)
    .all();
}

/** A connection without its MCP server's cached tool list (up to 1.5 MiB): what lists and the catalog read. */
export type ConnectionSummary = Omit<Connection, "toolsCache">;
const { toolsCache: _toolsCache, ...summaryColumns } = getTableColumns(connections);

/**
 * Every connection of a user (at most MAX_CONNECTIONS_PER_USER), newest first, without the MCP
 * tool lists: 200 MCP connections could otherwise bring 300 MB into one request.
 */
export function allConnections(ctx: ServiceContext): Promise<ConnectionSummary[]> {
  return ctx.db.select(summaryColumns).from(connections).where(eq(connections.userId, ctx.workspace.id)).orderBy(desc(connections.id)).all();
}

/** Whole rows of some of the user's connections (the MCP connections one catalog page lists), with the size of each cached tool list. */
export async function mcpConnectionsById(ctx: ServiceContext, ids: number[]): Promise<{ row: Connection; listBytes: number }[]> {
  if (ids.length === 0) return [];
  return ctx.db
    .select({ row: getTableColumns(connections), listBytes: sql<number>`coalesce(length(${connections.toolsCache}), 0)` })
    .from(connections)
    .where(and(eq(connections.userId, ctx.workspace.id), inArray(connections.id, ids)))
    .all();
}

/**
 * The connection a platform's calls use when none is named: the newest active one, else the
 * newest of any status (a fixed credential turns it active again), else undefined.
 */
export async function defaultConnection(ctx: ServiceContext, platformId: string, options: { activeOnly?: boolean } = {}): Promise<Connection | undefined> {
  const mine = and(eq(connections.userId, ctx.workspace.id), eq(connections.platform, platformId));
  const active = await ctx.db
    .select()
    .from(connections)
    .where(and(mine, eq(connections.status, "active")))
    .orderBy(desc(connections.id))
    .get();
  if (active || options.activeOnly) return active;
  return ctx.db.select().from(connections).where(mine).orderBy(desc(connections.id)).get();
}

/**
 * Replaces name, status and config. Secret fields sent back masked ("••••abcd") keep the stored
 * value, so a client can round-trip what it read without knowing the secret.
 */
export async function updateConnection(
  ctx: ServiceContext,
  id: number,
  input: { name: string; status: ConnectionStatus; config: Record<string, unknown> },
): Promise<Connection> {
  const current = await getConnection(ctx, id);
  const box = await ctx.secrets();
  const platform = platformFor(await requirePlatformFor(ctx, current.platform), current.authMode);
  const masked = platform.secretFields.filter((field) => sentMasked(input.config[field]));
  // A stored secret may only keep going where it went before: changing where the connection
  // sends requests needs the secrets entered again, or a caller could redirect them to itself.
  const moved = URL_FIELDS.filter((field) => (input.config[field] ?? null) !== (current.config[field] ?? null));
  // The same for an OAuth connection's tokens: they are dropped, and the connection is authorized again.
  const dropTokens = isOAuthConnection(current) && moved.length > 0;
  if (masked.length) {
    if (moved.length) {
      throw new HubError("validation_failed", `Changing ${moved.join(", ")} needs the secret fields entered again.`, {
        errors: masked.map((field) => ({ location: "body", field: `config.${field}`, message: `Enter the value again: ${moved.join(", ")} changed.` })),
      });
    }
  }
  const stored = await openMaskedFields(platform, current, masked, box);
  const merged: Record<string, unknown> = { ...input.config };
  for (const field of masked) merged[field] = keepMasked(merged[field], stored[field]);
  const config = validateConfig(platform, merged);
  const status = dropTokens ? "expired" : input.status;
  const fields = [
    input.name !== current.name && "name",
    status !== current.status && "status",
    configChanged(platform, current.config, config, masked) && "config",
  ].filter((field): field is string => typeof field === "string");
  const update = ctx.db
    .update(connections)
    .set({
      name: input.name,
      ...(dropTokens
        ? {
            status: "expired" as const,
            errorMessage: `${moved.join(", ")} changed, so the authorization was dropped. Reconnect: POST /v1/connections/${id}/reconnect.`,
            oauthTokens: null,
            oauthExpiresAt: null,
            oauthClient: null,
          }
        : { status: input.status, errorMessage: input.status === "active" ? null : current.errorMessage }),
      config: await sealConfig(platform, config, current.uid, box),
      // A changed config may expose other tools; MCP tools are loaded again on next use.
      toolsCache: null,
      toolsCachedAt: null,
      updatedAt: new Date(),
    })
    .where(and(eq(connections.id, id), eq(connections.userId, ctx.workspace.id)))
    .returning();
  // What changed, by field name only: never a value of the config.
  const audit = auditStatement(
    ctx,
    { action: "connection.updated", target: { type: "connection", id }, detail: { name: input.name, platform: current.platform, fields } },
    sql`changes() = 1`,
  );
  const [row] = fields.length ? (await ctx.db.batch([update, audit]))[0] : await update;
  forgetConnectionInUse(id);
  return row!;
}

/**
 * Whether a PUT changes the config: a plain field's value differs, or a secret was entered (sent
 * in full, not masked; one entered again with the same value counts, as only its ciphertext is kept).
 */
function configChanged(platform: Platform, stored: Record<string, unknown>, next: Record<string, unknown>, keptMasked: string[]): boolean {
  const secret = new Set(platform.secretFields);
  for (const key of new Set([...Object.keys(stored), ...Object.keys(next)])) {
    if (secret.has(key)) {
      if (next[key] !== undefined ? !keptMasked.includes(key) : stored[key] !== undefined) return true;
    } else if (JSON.stringify(stored[key]) !== JSON.stringify(next[key])) return true;
  }
  return false;
}

/**
 * Config fields that say where requests (and tokens) go: URLs, and the account, domain, region or
 * tenant a platform builds its host from (Salesforce's instance_url, Pipedrive's company_domain,
 * Shopify's shop, Zendesk's subdomain, ActiveCampaign's account, Microsoft's tenant).
 */
const URL_FIELDS = ["url", "base_url", "authorize_url", "token_url", "instance_url", "company_domain", "shop", "subdomain", "account", "region", "tenant"];

const sentMasked = (value: unknown) =>
  (typeof value === "string" && value.startsWith(MASK)) || (Boolean(value) && typeof value === "object" && Object.values(value as object).includes(MASK));

/**
 * Decrypts only the secrets the PUT sent back masked: fresh values need no old ones, so
 * re-entering credentials works even when the stored ones can no longer be read.
 */
async function openMaskedFields(platform: Platform, current: Connection, fields: string[], box: SecretBox): Promise<Record<string, unknown>> {
  if (fields.length === 0) return {};
  const subset = Object.fromEntries(fields.map((field) => [field, current.config[field]]));
  try {
    return await openConfig({ ...platform, secretFields: fields }, subset, current.uid, box);
  } catch (error) {
    if (!(error instanceof SecretUnreadable)) throw error;
    throw new HubError("validation_failed", "The stored secret can no longer be read; enter it again.", {
      errors: fields.map((field) => ({ location: "body", field: `config.${field}`, message: "Enter the value again." })),
    });
  }
}

function keepMasked(sent: unknown, stored: unknown): unknown {
  if (typeof sent === "string" && sent.startsWith(MASK)) return stored;
  if (sent && typeof sent === "object" && !Array.isArray(sent)) {
    const storedObject = (stored && typeof stored === "object" ? stored : {}) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(sent).map(([key, value]) => [key, value === MASK ? storedObject[key] : value]));
  }
  return sent;
}

export async function deleteConnection(ctx: ServiceContext, id: number): Promise<void> {
  const mine = and(eq(connections.id, id), eq(connections.userId, ctx.workspace.id));
  // Recorded first, while the row is there to name it; the delete in the same transaction follows.
  const audit = auditStatement(
    ctx,
    {
      action: "connection.deleted",
      target: { type: "connection", id },
      detail: sql`(SELECT json_object('name', ${connections.name}, 'platform', ${connections.platform}) FROM ${connections} WHERE ${mine})`,
    },
    sql`EXISTS (SELECT 1 FROM ${connections} WHERE ${mine})`,
  );
  const [, deleted] = await ctx.db.batch([audit, ctx.db.delete(connections).where(mine).returning({ id: connections.id })]);
  forgetConnectionInUse(id);
  if (deleted.length === 0) throw notFound("Connection");
}

/** Keeps the tool list an MCP connection's server gave, for the catalog (see `MCP_CACHE_TTL_MS`). */
export async function cacheMcpTools(db: Db, connection: Connection, tools: unknown[]): Promise<void> {
  const change = { toolsCache: tools, toolsCachedAt: new Date() };
  await db.update(connections).set(change).where(eq(connections.id, connection.id));
  noteConnectionChange(connection, change);
}

/** An MCP server was asked for its tools and did not give them: the list kept is not asked for again before the TTL. */
export async function noteMcpToolsAsked(db: Db, connection: Connection): Promise<void> {
  const change = { toolsCachedAt: new Date() };
  await db.update(connections).set(change).where(eq(connections.id, connection.id));
  noteConnectionChange(connection, change);
}

/** Records the outcome of using a connection: auth failures flag it, a success clears the flag. */
export async function recordConnectionHealth(db: Db, connection: Connection, outcome: { status: ConnectionStatus; message?: string | null }): Promise<void> {
  const unchanged = connection.status === outcome.status && (outcome.status === "active" || connection.errorMessage === outcome.message);
  if (unchanged) {
    // last_used_at is kept to the minute, so busy connections do not cost a write per call.
    if (!connection.lastUsedAt || Date.now() - connection.lastUsedAt.getTime() > 60_000) {
      const change = { lastUsedAt: new Date() };
      await db.update(connections).set(change).where(eq(connections.id, connection.id));
      noteConnectionChange(connection, change);
    }
    return;
  }
  const change = {
    status: outcome.status,
    errorMessage: outcome.status === "active" ? null : (outcome.message ?? null),
    lastUsedAt: new Date(),
    updatedAt: new Date(),
  };
  await db.update(connections).set(change).where(eq(connections.id, connection.id));
  noteConnectionChange(connection, change);
  // A platform that says the credentials ran out: the owner's alerts (DESIGN §6.5) hear of it.
  if (outcome.status === "expired") {
    await recordAlertEvent(db, {
      userId: connection.userId,
      kind: "connection_expired",
      subject: String(connection.id),
      summary: change.errorMessage ?? "Expired.",
    });
  }
}

export async function presentConnection(connection: ConnectionSummary, box: SecretBox) {
  const platform = presentablePlatform(connection.platform);
  return {
    connection_id: connection.id,
    platform: connection.platform,
    name: connection.name,
    config: platform ? await maskConfig(platformFor(platform, connection.authMode), connection.config, connection.uid, box) : {},
    status: connection.status,
    error_message: connection.errorMessage,
    /** How the connection proves itself: credentials in its config, or an OAuth authorization (then `oauth` says what of it). */
    auth_mode: connection.authMode,
    oauth: presentOAuth(connection),
    last_used_at: connection.lastUsedAt?.toISOString() ?? null,
    created_at: connection.createdAt.toISOString(),
    updated_at: connection.updatedAt.toISOString(),
  };
}
