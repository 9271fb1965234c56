import { and, count, eq, gt, lt } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import type { Db } from "../db/client";
import { insertWithinQuota } from "../db/quota";
import { connections, oauthAuthorizations, type Connection } from "../db/schema";
import { hashSecret, randomToken } from "../lib/crypto";
import { addressPolicyFor } from "../net/address-policy";
import { openConfig, sealConfig } from "./config-codec";
import { type McpChallenge, type McpClientState, beginMcpAuthorization, openClientState, publishesResourceMetadata } from "./mcp-oauth";
import { GrantRefused, GrantUnavailable, authorizationRequest } from "./oauth-protocol";
import { oauthSettingsFor } from "./oauth-settings";
import { pendingMessage } from "./oauth-tokens";
import type { McpConfig } from "./platforms/mcp";
import { platformFor } from "./platforms/oauth-spec";
import type { Platform } from "./platforms/types";
import { createConnection, getConnection, insertConnection, newConnectionUid, requirePlatform, requirePlatformFor, validateConfig } from "./service";

// Connecting with OAuth 2.0 (DESIGN §5): starting an authorization (a new connection, a
// reconnect, an MCP server that asks for one), and completing it at the callback. An
// authorization's `state` is single use, bound to the person who started it, and lasts 10
// minutes; only its hash is stored, with the PKCE verifier sealed beside it.

/** Where providers send the person back: `<origin>/connections/oauth/callback`. */
export const CALLBACK_PATH = "/connections/oauth/callback";
export const AUTHORIZATION_TTL_MS = 10 * 60_000;
/** Authorizations one person may have under way at once. */
export const MAX_PENDING_AUTHORIZATIONS = 20;

/** Where to send the person to authorize, and until when the link works. */
export interface Authorization {
  authorizeUrl: string;
  expiresAt: Date;
}

/** What an authorization row keeps sealed until the callback. */
export interface SealedAuthorization {
  codeVerifier?: string;
  /** The scopes asked for (platforms), in case the provider's answer does not say. */
  scopes?: string[];
  /** An MCP server's registration and discovery results, with the verifier. */
  mcp?: McpClientState;
}

export const authorizationContext = (stateHash: string) => `oauth_authorization:${stateHash}`;

/** `<origin>/connections/oauth/callback` for the origin the person uses. */
export const callbackUrlFor = (origin: string) => `${origin}${CALLBACK_PATH}`;

/**
 * `return_to` as stored: a path on this origin. Anything on another origin (or that a browser
 * could read as one: `//host`, `\\host`) is refused.
 */
export function checkReturnTo(raw: string | undefined, origin: string): string | null {
  if (!raw) return null;
  let url: URL | undefined;
  try {
    url = new URL(raw, origin);
  } catch {
    url = undefined;
  }
  if (!url || url.origin !== origin || /^[\\/]{2}/.test(url.pathname)) {
    throw new HubError("validation_failed", "return_to must be a page of this hub (the same origin).", {
      errors: [{ location: "body", field: "return_to", message: `Use a path on ${origin}.` }],
    });
  }
  return `${url.pathname}${url.search}${url.hash}`;
}

/**
 * `POST /v1/connections/oauth/start`: a new connection, `pending` until the person authorizes it
 * at the provider. Platforms with OAuth (Slack, HubSpot, Google, the generic oauth2) use
 * oauth4webapi; `mcp` uses the MCP SDK's discovery and registration.
 */
export async function startOAuthConnection(
  ctx: ServiceContext,
  input: { platform: string; name: string; config?: Record<string, unknown>; scopes?: string[]; return_to?: string },
  origin: string,
): Promise<{ connection: Connection } & Authorization> {
  const platform = await requirePlatformFor(ctx, input.platform);
  const returnTo = checkReturnTo(input.return_to, origin);
  await makeRoomForAuthorization(ctx);
  if (platform.id === "mcp") {
    const config = validateConfig(platform, input.config ?? {}) as McpConfig;
    const uid = newConnectionUid();
    // Started before the connection is stored, so a server that cannot be authorized leaves nothing behind.
    const started = await startMcp(ctx, { config, uid, origin });
    const connection = await insertConnection(ctx, { platform, name: input.name, config, uid, authMode: "oauth2", errorMessage: "" });
    const authorization = await recordAuthorization(ctx, { ...started, connectionId: connection.id, uid, platform, returnTo, origin });
    return { connection: await markPending(ctx.db, connection), ...authorization };
  }
  if (!platform.oauth) {
    throw new HubError(
      "validation_failed",
      `${platform.name} does not connect with OAuth; create the connection with its credentials (POST /v1/connections).`,
      {
        errors: [{ location: "body", field: "platform", message: "Not an OAuth platform." }],
      },
    );
  }
  const config = validateConfig(platformFor(platform, "oauth2"), input.config ?? {});
  const settings = oauthSettingsFor(platform, config, ctx.config.oauthClients, input.scopes);
  const connection = await insertConnection(ctx, { platform, name: input.name, config, authMode: "oauth2", errorMessage: "" });
  const authorization = await authorizeWith(ctx, settings, { connection, platform, returnTo, origin });
  return { connection: await markPending(ctx.db, connection), ...authorization };
}

/**
 * `POST /v1/connections/{id}/reconnect`: a new authorization for a connection made with OAuth (or
 * an MCP connection whose server asks for one), same id. The connection keeps working as it does
 * until the callback replaces its tokens.
 */
export async function reconnectConnection(
  ctx: ServiceContext,
  id: number,
  input: { scopes?: string[]; return_to?: string },
  origin: string,
): Promise<Authorization> {
  const connection = await getConnection(ctx, id);
  const platform = await requirePlatformFor(ctx, connection.platform);
  const returnTo = checkReturnTo(input.return_to, origin);
  const box = await ctx.secrets();
  await makeRoomForAuthorization(ctx);
  if (platform.id === "mcp") {
    const config = (await openConfig(platform, connection.config, connection.uid, box)) as McpConfig;
    const saved = await openClientState(box, connection.uid, connection.oauthClient);
    const started = await startMcp(ctx, { config, uid: connection.uid, origin, saved });
    return recordAuthorization(ctx, { ...started, connectionId: connection.id, uid: connection.uid, platform, returnTo, origin });
  }
  if (!platform.oauth || connection.authMode !== "oauth2") {
    throw new HubError(
      "conflict",
      `Connection ${id} uses credentials in its config: update them with PUT /v1/connections/${id}, or connect with OAuth (POST /v1/connections/oauth/start).`,
    );
  }
  const config = await openConfig(platformFor(platform, "oauth2"), connection.config, connection.uid, box);
  const settings = oauthSettingsFor(platform, config, ctx.config.oauthClients, input.scopes ?? connection.oauthScopes ?? undefined);
  return authorizeWith(ctx, settings, { connection, platform, returnTo, origin });
}

/** A new authorization request (state, PKCE) for the connection under `settings`, recorded for its callback. */
async function authorizeWith(
  ctx: ServiceContext,
  settings: Parameters<typeof authorizationRequest>[0],
  target: {
    connection: { id: number; uid: string };
    platform: Parameters<typeof recordAuthorization>[1]["platform"];
    returnTo: Parameters<typeof recordAuthorization>[1]["returnTo"];
    origin: string;
  },
): Promise<Authorization> {
  const state = randomToken(32);
  const { url, codeVerifier } = await authorizationRequest(settings, { redirectUri: callbackUrlFor(target.origin), state });
  return recordAuthorization(ctx, {
    state,
    url,
    sealed: { codeVerifier, scopes: settings.scopes },
    connectionId: target.connection.id,
    uid: target.connection.uid,
    platform: target.platform,
    returnTo: target.returnTo,
    origin: target.origin,
  });
}

/**
 * `POST /v1/connections` and the dashboard's "Save": a connection with the credentials given,
 * except an MCP server given none that says it is behind OAuth (its RFC 9728 metadata): that one
 * is stored `pending` and answered with the authorization to complete.
 */
export async function addConnection(
  ctx: ServiceContext,
  input: { platform: string; name: string; config: unknown; return_to?: string },
  origin: string,
): Promise<{ connection: Connection; authorization?: Authorization }> {
  const platform = await requirePlatformFor(ctx, input.platform);
  if (platform.id !== "mcp") return { connection: await createConnection(ctx, input) };
  const config = validateConfig(platform, input.config) as McpConfig;
  if (config.token || Object.keys(config.headers ?? {}).length || !(await publishesResourceMetadata(config.url, addressPolicyFor(ctx.config)))) {
    return { connection: await createConnection(ctx, input) };
  }
  const started = await startOAuthConnection(ctx, { platform: "mcp", name: input.name, config, return_to: input.return_to }, origin);
  const { connection, ...authorization } = started;
  return { connection, authorization };
}

/**
 * A connection test found an MCP server that refuses requests without a token and challenges for
 * OAuth: an authorization whose completion creates the connection (tests store nothing before).
 */
export async function authorizeMcpDraft(
  ctx: ServiceContext,
  input: { config: McpConfig; challenge: McpChallenge; name?: string },
  origin: string,
): Promise<Authorization> {
  await makeRoomForAuthorization(ctx);
  const uid = newConnectionUid();
  const started = await startMcp(ctx, { config: input.config, uid, origin, challenge: input.challenge });
  const platform = requirePlatform("mcp");
  const box = await ctx.secrets();
  const draft = {
    name: input.name ?? `MCP server ${new URL(input.config.url).host}`.slice(0, 100),
    config: await sealConfig(platform, { ...input.config }, uid, box),
  };
  return recordAuthorization(ctx, { ...started, connectionId: null, uid, platform, returnTo: null, origin, draft });
}

async function startMcp(
  ctx: ServiceContext,
  input: { config: McpConfig; uid: string; origin: string; saved?: McpClientState; challenge?: McpChallenge },
): Promise<{ state: string; url: URL; sealed: SealedAuthorization }> {
  const state = randomToken(32);
  try {
    const begun = await beginMcpAuthorization({
      url: input.config.url,
      redirectUri: callbackUrlFor(input.origin),
      state,
      saved: input.saved ?? {},
      challenge: input.challenge,
      policy: addressPolicyFor(ctx.config),
    });
    return { state, url: begun.authorizationUrl, sealed: { mcp: begun.saved } };
  } catch (error) {
    if (!(error instanceof GrantRefused || error instanceof GrantUnavailable)) throw error;
    throw new HubError("validation_failed", `The MCP server cannot be authorized with OAuth: ${error.message}`, {
      errors: [{ location: "body", field: "config.url", message: "The server's OAuth authorization could not be started." }],
    });
  }
}

/** Stores the authorization under way (the state's hash, the verifier sealed) and answers where to send the person. */
async function recordAuthorization(
  ctx: ServiceContext,
  input: {
    state: string;
    url: URL;
    sealed: SealedAuthorization;
    connectionId: number | null;
    uid: string;
    platform: Platform;
    returnTo: string | null;
    origin: string;
    draft?: { name: string; config: Record<string, unknown> };
  },
): Promise<Authorization> {
  const stateHash = await hashSecret(input.state);
  const box = await ctx.secrets();
  const expiresAt = new Date(Date.now() + AUTHORIZATION_TTL_MS);
  const insert = ctx.db.insert(oauthAuthorizations).values({
    stateHash,
    userId: ctx.workspace.id,
    actorUserId: ctx.actor.id,
    connectionId: input.connectionId,
    connectionUid: input.uid,
    platform: input.platform.id,
    draft: input.draft ?? null,
    sealed: await box.seal(JSON.stringify(input.sealed), authorizationContext(stateHash)),
    redirectUri: callbackUrlFor(input.origin),
    returnTo: input.returnTo,
    expiresAt,
  });
  // Counted first (makeRoomForAuthorization); this holds the bound when starts arrive at once.
  const live = and(eq(oauthAuthorizations.userId, ctx.workspace.id), gt(oauthAuthorizations.expiresAt, new Date()))!;
  if (!(await insertWithinQuota(ctx.db, insert.returning({ stateHash: oauthAuthorizations.stateHash }), oauthAuthorizations, live, MAX_PENDING_AUTHORIZATIONS)))
    throw tooManyAuthorizations();
  return { authorizeUrl: input.url.toString(), expiresAt };
}

/** Forgets the person's expired authorizations and refuses a new one past the bound. */
async function makeRoomForAuthorization(ctx: ServiceContext): Promise<void> {
  const now = new Date();
  await ctx.db.delete(oauthAuthorizations).where(and(eq(oauthAuthorizations.userId, ctx.workspace.id), lt(oauthAuthorizations.expiresAt, now)));
  const [row] = await ctx.db
    .select({ n: count() })
    .from(oauthAuthorizations)
    .where(and(eq(oauthAuthorizations.userId, ctx.workspace.id), gt(oauthAuthorizations.expiresAt, now)));
  if ((row?.n ?? 0) >= MAX_PENDING_AUTHORIZATIONS) throw tooManyAuthorizations();
}

const tooManyAuthorizations = () =>
  new HubError(
    "quota_exceeded",
    `At most ${MAX_PENDING_AUTHORIZATIONS} authorizations may be under way at once; finish one, or wait for them to expire (10 minutes).`,
  );

async function markPending(db: Db, connection: Connection): Promise<Connection> {
  const [row] = await db
    .update(connections)
    .set({ status: "pending", errorMessage: pendingMessage(connection.id) })
    .where(eq(connections.id, connection.id))
    .returning();
  return row ?? connection;
}

/** Every minute: authorizations nobody completed in time. */
export async function forgetOldAuthorizations(db: Db, now = Date.now()): Promise<void> {
  await db.delete(oauthAuthorizations).where(lt(oauthAuthorizations.expiresAt, new Date(now)));
}
