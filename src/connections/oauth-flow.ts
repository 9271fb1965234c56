import { and, count, eq, gt, lt } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import type { SecretBox } from "../core/secret-box";
import type { Db } from "../db/client";
import { connections, oauthAuthorizations, type Connection } from "../db/schema";
import { hashSecret, randomToken } from "../lib/crypto";
import { addressPolicyFor } from "../net/address-policy";
import { openConfig, sealConfig } from "./config-codec";
import { forgetConnectionInUse } from "./in-use";
import {
  type McpChallenge,
  type McpClientState,
  beginMcpAuthorization,
  finishMcpAuthorization,
  openClientState,
  publishesResourceMetadata,
  sealClientState,
} from "./mcp-oauth";
import { GrantRefused, GrantUnavailable, type IssuedTokens, authorizationRequest, exchangeCode } from "./oauth-protocol";
import { oauthSettingsFor } from "./oauth-settings";
import { pendingMessage, sealTokens } from "./oauth-tokens";
import type { McpConfig } from "./platforms/mcp";
import { platformFor } from "./platforms/oauth-spec";
import type { Platform } from "./platforms/types";
import { createConnection, getConnection, insertConnection, newConnectionUid, requirePlatform, validateConfig } from "./service";

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
interface SealedAuthorization {
  codeVerifier?: string;
  /** The scopes asked for (platforms), in case the provider's answer does not say. */
  scopes?: string[];
  /** An MCP server's registration and discovery results, with the verifier. */
  mcp?: McpClientState;
}

const authorizationContext = (stateHash: string) => `oauth_authorization:${stateHash}`;

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
  const platform = requirePlatform(input.platform);
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
  const platform = requirePlatform(connection.platform);
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
  const platform = requirePlatform(input.platform);
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
  await ctx.db.insert(oauthAuthorizations).values({
    stateHash,
    userId: ctx.user.id,
    connectionId: input.connectionId,
    connectionUid: input.uid,
    platform: input.platform.id,
    draft: input.draft ?? null,
    sealed: await box.seal(JSON.stringify(input.sealed), authorizationContext(stateHash)),
    redirectUri: callbackUrlFor(input.origin),
    returnTo: input.returnTo,
    expiresAt,
  });
  return { authorizeUrl: input.url.toString(), expiresAt };
}

/** Forgets the person's expired authorizations and refuses a new one past the bound. */
async function makeRoomForAuthorization(ctx: ServiceContext): Promise<void> {
  const now = new Date();
  await ctx.db.delete(oauthAuthorizations).where(and(eq(oauthAuthorizations.userId, ctx.user.id), lt(oauthAuthorizations.expiresAt, now)));
  const [row] = await ctx.db
    .select({ n: count() })
    .from(oauthAuthorizations)
    .where(and(eq(oauthAuthorizations.userId, ctx.user.id), gt(oauthAuthorizations.expiresAt, now)));
  if ((row?.n ?? 0) >= MAX_PENDING_AUTHORIZATIONS) {
    throw new HubError(
      "quota_exceeded",
      `At most ${MAX_PENDING_AUTHORIZATIONS} authorizations may be under way at once; finish one, or wait for them to expire (10 minutes).`,
    );
  }
}

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

/** What the callback page shows. */
export type CallbackOutcome =
  | { kind: "connected"; connection: Connection; returnTo: string | null }
  | { kind: "failed"; connection: Connection | null; message: string; returnTo: string | null }
  | { kind: "refused"; status: 400 | 403; message: string };

/**
 * `GET /connections/oauth/callback?code=&state=` for the signed-in person: checks the state (known,
 * theirs, not expired), consumes it, and exchanges the code with the PKCE verifier; the tokens are
 * stored sealed and the connection becomes `active`. `?error=` from the provider marks the
 * connection `error` with the reason. A bad, expired, reused or someone else's state changes nothing.
 */
export async function completeAuthorization(ctx: ServiceContext, callbackUrl: URL): Promise<CallbackOutcome> {
  const parameters = callbackUrl.searchParams;
  const state = parameters.get("state");
  if (!state || state.length > 200)
    return { kind: "refused", status: 400, message: "This page needs the state the provider sends back; start connecting again." };
  const stateHash = await hashSecret(state);
  const row = await ctx.db.select().from(oauthAuthorizations).where(eq(oauthAuthorizations.stateHash, stateHash)).get();
  if (!row) return { kind: "refused", status: 400, message: "This authorization link is unknown or was already used. Start connecting again." };
  if (row.userId !== ctx.user.id) {
    return {
      kind: "refused",
      status: 403,
      message: "This authorization was started by another account. Sign in to the hub as the person who started it, then open the link again.",
    };
  }
  if (row.expiresAt.getTime() <= Date.now())
    return { kind: "refused", status: 400, message: "This authorization expired (they last 10 minutes). Start connecting again." };
  // Single use: of two requests with the same state, one consumes it.
  const consumed = await ctx.db.delete(oauthAuthorizations).where(eq(oauthAuthorizations.id, row.id)).returning({ id: oauthAuthorizations.id });
  if (consumed.length === 0) return { kind: "refused", status: 400, message: "This authorization link was already used. Start connecting again." };

  const box = await ctx.secrets();
  const platform = requirePlatform(row.platform);
  const sealed = JSON.parse(await box.open(row.sealed, authorizationContext(stateHash))) as SealedAuthorization;
  let connection = row.connectionId ? await getConnection(ctx, row.connectionId).catch(() => null) : null;
  if (row.connectionId && !connection) return { kind: "refused", status: 400, message: "The connection this authorization was for no longer exists." };

  const providerError = parameters.get("error");
  if (providerError) {
    const description = parameters.get("error_description");
    const message = `${platform.name} did not authorize the connection: ${providerError.slice(0, 100)}${description ? ` (${description.slice(0, 300)})` : ""}.`;
    if (connection) connection = await markFailed(ctx, connection, message);
    return { kind: "failed", connection, message, returnTo: row.returnTo };
  }
  const code = parameters.get("code");
  if (!code) return { kind: "failed", connection, message: "The provider sent no authorization code back.", returnTo: row.returnTo };

  let issued: IssuedTokens;
  let client: McpClientState | undefined;
  try {
    if (platform.id === "mcp") {
      const stored = connection?.config ?? row.draft?.config ?? {};
      const config = (await openConfig(platform, stored, row.connectionUid, box)) as McpConfig;
      const finished = await finishMcpAuthorization({
        url: config.url,
        code,
        redirectUri: row.redirectUri,
        state,
        saved: sealed.mcp ?? {},
        policy: addressPolicyFor(ctx.config),
      });
      issued = finished.issued;
      client = finished.saved;
    } else {
      if (!connection) throw new GrantRefused("invalid_request", "no connection to complete");
      const config = await openConfig(platformFor(platform, "oauth2"), connection.config, connection.uid, box);
      const settings = oauthSettingsFor(platform, config, ctx.config.oauthClients, sealed.scopes);
      issued = await exchangeCode(
        settings,
        { parameters, state, redirectUri: row.redirectUri, codeVerifier: sealed.codeVerifier ?? "" },
        addressPolicyFor(ctx.config),
      );
      issued = { ...issued, scopes: issued.scopes ?? sealed.scopes };
    }
  } catch (error) {
    if (!(error instanceof GrantRefused || error instanceof GrantUnavailable || error instanceof HubError)) throw error;
    const message = `${platform.name} did not complete the authorization: ${error.message}`;
    if (connection) connection = await markFailed(ctx, connection, message);
    return { kind: "failed", connection, message, returnTo: row.returnTo };
  }

  if (!connection) {
    // An MCP connection test's authorization: the connection is created now, within the quota.
    const draft = row.draft!;
    const config = await openConfig(platform, draft.config, row.connectionUid, box);
    connection = await insertConnection(ctx, { platform, name: draft.name, config, uid: row.connectionUid, authMode: "oauth2" });
  }
  connection = await storeAuthorization(ctx, box, connection, issued, client);
  return { kind: "connected", connection, returnTo: row.returnTo };
}

/** The tokens of a completed authorization, sealed, and the connection active: one write. */
async function storeAuthorization(
  ctx: ServiceContext,
  box: SecretBox,
  connection: Connection,
  issued: IssuedTokens,
  client?: McpClientState,
): Promise<Connection> {
  const tokens = await sealTokens(box, connection.uid, { access_token: issued.accessToken, refresh_token: issued.refreshToken, token_type: issued.tokenType });
  const [row] = await ctx.db
    .update(connections)
    .set({
      authMode: "oauth2",
      status: "active",
      errorMessage: null,
      oauthTokens: tokens,
      oauthExpiresAt: issued.expiresAt,
      oauthScopes: issued.scopes ?? [],
      oauthRefreshedAt: null,
      ...(client ? { oauthClient: await sealClientState(box, connection.uid, client), toolsCache: null, toolsCachedAt: null } : {}),
      updatedAt: new Date(),
    })
    .where(and(eq(connections.id, connection.id), eq(connections.userId, ctx.user.id)))
    .returning();
  forgetConnectionInUse(connection.id);
  return row ?? connection;
}

async function markFailed(ctx: ServiceContext, connection: Connection, message: string): Promise<Connection> {
  const [row] = await ctx.db
    .update(connections)
    .set({ status: "error", errorMessage: message, updatedAt: new Date() })
    .where(and(eq(connections.id, connection.id), eq(connections.userId, ctx.user.id)))
    .returning();
  forgetConnectionInUse(connection.id);
  return row ?? connection;
}
