import { roleAtLeast } from "../core/roles";
import { memberRole } from "../workspaces/resolve";
import { and, eq } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import type { SecretBox } from "../core/secret-box";
import { connections, oauthAuthorizations, type Connection } from "../db/schema";
import { hashSecret } from "../lib/crypto";
import { addressPolicyFor } from "../net/address-policy";
import { openConfig } from "./config-codec";
import { forgetConnectionInUse } from "./in-use";
import { type McpClientState, finishMcpAuthorization, sealClientState } from "./mcp-oauth";
import { GrantRefused, GrantUnavailable, type IssuedTokens, exchangeCode } from "./oauth-protocol";
import { oauthSettingsFor } from "./oauth-settings";
import { sealTokens } from "./oauth-tokens";
import type { McpConfig } from "./platforms/mcp";
import { platformFor } from "./platforms/oauth-spec";
import { getConnection, insertConnection, requirePlatformFor } from "./service";

import { type SealedAuthorization, authorizationContext } from "./oauth-flow";

// Completing an OAuth authorization at the callback (DESIGN §5): the state is checked (single
// use, the same person, within 10 minutes), the code exchanged with the PKCE verifier, and the
// tokens stored sealed; a refusal marks the connection `error` with the provider's reason.

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
export async function completeAuthorization(caller: ServiceContext, callbackUrl: URL): Promise<CallbackOutcome> {
  const parameters = callbackUrl.searchParams;
  const state = parameters.get("state");
  if (!state || state.length > 200)
    return { kind: "refused", status: 400, message: "This page needs the state the provider sends back; start connecting again." };
  const stateHash = await hashSecret(state);
  const row = await caller.db.select().from(oauthAuthorizations).where(eq(oauthAuthorizations.stateHash, stateHash)).get();
  if (!row) return { kind: "refused", status: 400, message: "This authorization link is unknown or was already used. Start connecting again." };
  // Only the person who started it completes it, in the workspace it was started for, while they
  // may still change that workspace's connections (whichever workspace the browser has chosen).
  const ctx = await startersContext(caller, row);
  if (!ctx) {
    return {
      kind: "refused",
      status: 403,
      message:
        "This authorization was started by someone else, or for a workspace where you may no longer add connections. Sign in to the hub as the person who started it, then open the link again.",
    };
  }
  if (row.expiresAt.getTime() <= Date.now())
    return { kind: "refused", status: 400, message: "This authorization expired (they last 10 minutes). Start connecting again." };
  // Single use: of two requests with the same state, one consumes it.
  const consumed = await ctx.db.delete(oauthAuthorizations).where(eq(oauthAuthorizations.id, row.id)).returning({ id: oauthAuthorizations.id });
  if (consumed.length === 0) return { kind: "refused", status: 400, message: "This authorization link was already used. Start connecting again." };

  const box = await ctx.secrets();
  const platform = await requirePlatformFor(ctx, row.platform);
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
    .where(and(eq(connections.id, connection.id), eq(connections.userId, ctx.workspace.id)))
    .returning();
  forgetConnectionInUse(connection.id);
  return row ?? connection;
}

async function markFailed(ctx: ServiceContext, connection: Connection, message: string): Promise<Connection> {
  const [row] = await ctx.db
    .update(connections)
    .set({ status: "error", errorMessage: message, updatedAt: new Date() })
    .where(and(eq(connections.id, connection.id), eq(connections.userId, ctx.workspace.id)))
    .returning();
  forgetConnectionInUse(connection.id);
  return row ?? connection;
}

/** The context of the authorization's workspace, if the caller started it and is an editor there. */
async function startersContext(caller: ServiceContext, row: { userId: number; actorUserId: number | null }): Promise<ServiceContext | undefined> {
  if ((row.actorUserId ?? row.userId) !== caller.actor.id) return undefined;
  if (row.userId === caller.workspace.id) return roleAtLeast(caller.workspace.role, "editor") ? caller : undefined;
  const role = row.userId === caller.actor.id ? "owner" : await memberRole(caller.db, row.userId, caller.actor.id);
  if (!role || !roleAtLeast(role, "editor")) return undefined;
  return { ...caller, workspace: { id: row.userId, role, personal: row.userId === caller.actor.id } };
}
