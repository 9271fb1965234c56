import type { Runtime } from "../core/context";
import { SecretUnreadable, type SecretBox } from "../core/secret-box";
import type { Connection } from "../db/schema";
import { iso } from "../http/schemas";
import { loggableError } from "../lib/safe-log";
import { noteConnectionChange } from "./in-use";
import { McpError } from "./mcp-client";
import type { McpConfig } from "./platforms/mcp";
import { PlatformError, type Platform } from "./platforms/types";

// The tokens of connections made with OAuth: how they are kept (sealed, both in one column, so a
// rotated refresh token is stored in the same write as its access token), and how a call gets a
// usable access token. Refreshing is the ConnectionTokens object's job (connections/oauth/), one
// per connection, so that a refresh token is sent at most once however many calls need it.

export interface StoredTokens {
  access_token: string;
  refresh_token?: string;
  token_type?: string;
}

/** A token that runs out within this long is refreshed before the call (DESIGN §5). */
export const REFRESH_AHEAD_MS = 60_000;

const tokensContext = (uid: string) => `connection:${uid}:oauth_tokens`;

export async function sealTokens(box: SecretBox, uid: string, tokens: StoredTokens): Promise<string> {
  return box.seal(JSON.stringify(tokens), tokensContext(uid));
}

/** The stored tokens; undefined when there are none or they can no longer be read. */
export async function openTokens(box: SecretBox, uid: string, sealed: string | null): Promise<StoredTokens | undefined> {
  if (!sealed) return undefined;
  try {
    return JSON.parse(await box.open(sealed, tokensContext(uid))) as StoredTokens;
  } catch (error) {
    if (error instanceof SecretUnreadable) return undefined;
    throw error;
  }
}

export const isOAuthConnection = (connection: Pick<Connection, "authMode">) => connection.authMode === "oauth2";

/** What responses show of a connection's authorization: never a token. */
export function presentOAuth(connection: Pick<Connection, "authMode" | "oauthScopes" | "oauthExpiresAt" | "oauthRefreshedAt">) {
  if (!isOAuthConnection(connection)) return null;
  return { scopes: connection.oauthScopes ?? [], expires_at: iso(connection.oauthExpiresAt), refreshed_at: iso(connection.oauthRefreshedAt) };
}

/** What an expired connection says: what happened, and how to fix it. */
export function expiredMessage(platformName: string, connectionId: number, reason: string): string {
  return (
    `${platformName} refused to renew this connection's authorization (${reason.slice(0, 300)}). ` +
    `Reconnect it: POST /v1/connections/${connectionId}/reconnect, or Reconnect on its page in the dashboard.`
  );
}

export const pendingMessage = (connectionId: number) =>
  `Connection ${connectionId} is waiting for authorization: open the authorize_url it was given, or get a new one with POST /v1/connections/${connectionId}/reconnect.`;

/** What a call asks the connection's token object. */
export interface TokenRequest {
  connectionId: number;
  uid: string;
  userId: number;
  /** The access token a platform just refused (401): refreshed only if it is still the stored one. */
  refused?: string;
}

/** The columns a token object changed, for the caller's copy of the connection. */
export type TokenChange = Partial<Pick<Connection, "status" | "errorMessage" | "oauthTokens" | "oauthExpiresAt" | "oauthScopes" | "oauthRefreshedAt">>;

export type TokenOutcome =
  | { ok: true; accessToken: string; change?: TokenChange }
  | { ok: false; status: "expired" | "pending" | "error"; message: string; retryable: boolean; change?: TokenChange };

/**
 * The access token a call on an OAuth connection sends: the stored one while it has more than a
 * minute left, else (or when `refused` says the platform refused it) the one the connection's
 * token object gives after refreshing. An expired connection fails at once with its message,
 * calling nobody. Failures are PlatformErrors, which tool calls report like a platform's answer.
 */
export async function accessTokenFor(runtime: Pick<Runtime, "secrets" | "bindings">, connection: Connection, refused?: string): Promise<string> {
  if (connection.status === "expired")
    throw new PlatformError(connection.errorMessage ?? expiredMessage("The provider", connection.id, "expired"), 401, "expired", { retryable: false });
  if (connection.status === "pending" && !connection.oauthTokens) throw new PlatformError(pendingMessage(connection.id), 401, undefined, { retryable: false });
  if (!refused) {
    const tokens = await openTokens(await runtime.secrets(), connection.uid, connection.oauthTokens);
    const expiresAt = connection.oauthExpiresAt?.getTime();
    if (tokens && (expiresAt === undefined || expiresAt - Date.now() > REFRESH_AHEAD_MS)) return tokens.access_token;
  }
  const namespace = runtime.bindings.CONNECTION_TOKENS;
  let outcome: TokenOutcome;
  try {
    outcome = await namespace
      .get(namespace.idFromName(connection.uid))
      .token({ connectionId: connection.id, uid: connection.uid, userId: connection.userId, refused });
  } catch (error) {
    console.error(JSON.stringify({ level: "error", message: "token object failed", connection_id: connection.id, error: loggableError(error) }));
    throw new PlatformError("The connection's authorization could not be renewed right now; try again shortly.", 0);
  }
  // This isolate's copy of the connection follows at once (a new token, or expired).
  if (outcome.change) noteConnectionChange(connection, outcome.change);
  if (outcome.ok) return outcome.accessToken;
  if (outcome.status === "expired") throw new PlatformError(outcome.message, 401, "expired", { retryable: false, code: "connection_expired" });
  throw new PlatformError(outcome.message, outcome.retryable ? 0 : 401, undefined, { retryable: outcome.retryable });
}

/**
 * The config a platform call on this connection uses, and how to renew it after a 401: for an
 * OAuth connection, the access token fills the platform's token field (Slack's bot_token…), so
 * the platform's own auth headers send it.
 */
export async function platformCallConfig<C extends Record<string, any>>(
  runtime: Pick<Runtime, "secrets" | "bindings">,
  platform: Platform,
  connection: Connection,
  config: C,
): Promise<{ config: C; renew?: () => Promise<C> }> {
  if (!isOAuthConnection(connection)) return { config };
  const field = platform.oauth?.tokenField ?? "access_token";
  const token = await accessTokenFor(runtime, connection);
  return {
    config: { ...config, [field]: token },
    renew: async () => ({ ...config, [field]: await accessTokenFor(runtime, connection, token) }),
  };
}

/**
 * Runs `work` (a tool list, a tool call) against an MCP connection with its access token, and on
 * a refusal (401) once more after a refresh. Connections without OAuth run as they are.
 */
export async function withMcpToken<T>(
  runtime: Pick<Runtime, "secrets" | "bindings">,
  connection: Connection,
  config: McpConfig,
  work: (config: McpConfig) => Promise<T>,
): Promise<T> {
  if (!isOAuthConnection(connection)) return work(config);
  const token = await accessTokenFor(runtime, connection);
  try {
    return await work({ ...config, token });
  } catch (error) {
    if (!(error instanceof McpError) || !error.unauthorized) throw error;
    return work({ ...config, token: await accessTokenFor(runtime, connection, token) });
  }
}
