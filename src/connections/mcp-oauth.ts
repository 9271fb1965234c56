import {
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  auth,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
  refreshAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { OAuthError, ServerError, TemporarilyUnavailableError, TooManyRequestsError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { SecretUnreadable, type SecretBox } from "../core/secret-box";
import type { AddressPolicy } from "../net/address-policy";
import { OutboundRefused, guardedFetch } from "../net/safe-fetch";
import { GrantRefused, GrantUnavailable, type IssuedTokens } from "./oauth-protocol";
import { splitScopes } from "./oauth-settings";

// MCP servers behind OAuth (the MCP authorization spec): the MCP SDK's client auth does the
// protocol (RFC 9728 and RFC 8414 discovery, RFC 7591 registration, PKCE, RFC 8707 `resource`,
// the refresh grant) over `StoredMcpAuth`, a provider whose state the hub keeps sealed: on the
// authorization row while the person authorizes, then on the connection (`oauth_client`).

/** What the hub keeps of its registration with an MCP server's authorization server. */
export interface McpClientState {
  clientInformation?: OAuthClientInformationMixed;
  discoveryState?: OAuthDiscoveryState;
  /** The PKCE verifier, while an authorization is under way. */
  codeVerifier?: string;
}

const SDK_TIMEOUT_MS = 15_000;
const PROBE_TIMEOUT_MS = 5_000;
const MAX_AUTH_RESPONSE_BYTES = 256 * 1024;

/**
 * The SDK's view of one connection's authorization. Whatever the SDK saves (its registration, its
 * discovery results, the PKCE verifier, tokens, the URL to send the person to) is kept here for
 * the caller to store; it never hands the SDK the connection's tokens, so `auth` always either
 * completes an authorization code or starts a new authorization, and never refreshes on its own
 * (refreshes go through the connection's token object, one at a time).
 */
export class StoredMcpAuth implements OAuthClientProvider {
  authorizationUrl?: URL;
  issued?: OAuthTokens;

  constructor(
    private readonly callbackUrl: string,
    private readonly stateValue: string,
    readonly saved: McpClientState,
  ) {}

  get redirectUrl() {
    return this.callbackUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Agent Automation Hub",
      redirect_uris: [this.callbackUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_post",
    };
  }

  state() {
    return this.stateValue;
  }

  clientInformation() {
    return this.saved.clientInformation;
  }

  saveClientInformation(information: OAuthClientInformationMixed) {
    this.saved.clientInformation = information;
  }

  tokens() {
    return undefined;
  }

  saveTokens(tokens: OAuthTokens) {
    this.issued = tokens;
  }

  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string) {
    this.saved.codeVerifier = verifier;
  }

  codeVerifier() {
    if (!this.saved.codeVerifier) throw new Error("No authorization is under way for this connection.");
    return this.saved.codeVerifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.saved.discoveryState = state;
  }

  discoveryState() {
    return this.saved.discoveryState;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    if (scope === "all" || scope === "client") this.saved.clientInformation = undefined;
    if (scope === "all" || scope === "discovery") this.saved.discoveryState = undefined;
    if (scope === "all" || scope === "verifier") this.saved.codeVerifier = undefined;
  }
}

/** A fetch for the SDK: the outbound guard, a size cap and a deadline on every request. */
function sdkFetch(policy: AddressPolicy, timeoutMs = SDK_TIMEOUT_MS): typeof fetch {
  const guarded = guardedFetch(policy, MAX_AUTH_RESPONSE_BYTES);
  return (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    return guarded(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline });
  };
}

/**
 * Whether the server says it is protected by OAuth without being sent an MCP request: its
 * protected resource metadata (RFC 9728) at the well-known address. Used when a connection is
 * created, so creating one to an open server costs that server no session.
 */
export async function publishesResourceMetadata(url: string, policy: AddressPolicy): Promise<boolean> {
  try {
    // A quick look: a server that is slow to say has no metadata worth waiting for at creation.
    const metadata = await discoverOAuthProtectedResourceMetadata(url, undefined, sdkFetch(policy, PROBE_TIMEOUT_MS));
    return Array.isArray(metadata.authorization_servers) && metadata.authorization_servers.length > 0;
  } catch {
    return false;
  }
}

/** An unauthenticated server's challenge: where its resource metadata is and which scope it wants. */
export interface McpChallenge {
  resourceMetadataUrl?: URL;
  scope?: string;
}

/**
 * What the server answers an MCP request without credentials: its challenge when it refuses it
 * with 401 (the MCP authorization spec: `WWW-Authenticate: Bearer resource_metadata="…"`),
 * undefined when it does not.
 */
export async function mcpChallenge(url: string, policy: AddressPolicy): Promise<McpChallenge | undefined> {
  const initialize = {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "agent-automation-hub", version: "1.0.0" } },
  };
  let response: Response;
  try {
    response = await sdkFetch(policy)(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify(initialize),
    });
  } catch {
    return undefined;
  }
  await response.body?.cancel().catch(() => undefined);
  if (response.status !== 401) {
    // An open server gave a session to a request that was only asking: end it.
    const session = response.headers.get("mcp-session-id");
    if (session) await sdkFetch(policy)(url, { method: "DELETE", headers: { "mcp-session-id": session } }).catch(() => undefined);
    return undefined;
  }
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
  return { resourceMetadataUrl, scope };
}

/**
 * Starts an authorization with an MCP server's authorization server, through the SDK's `auth`:
 * discovery, registration (kept from an earlier authorization when there is one), PKCE, and the
 * `resource` indicator. Answers the URL to send the person to and what to keep until the callback.
 */
export async function beginMcpAuthorization(input: {
  url: string;
  redirectUri: string;
  state: string;
  saved: McpClientState;
  challenge?: McpChallenge;
  policy: AddressPolicy;
}): Promise<{ authorizationUrl: URL; saved: McpClientState }> {
  const provider = new StoredMcpAuth(input.redirectUri, input.state, { clientInformation: input.saved.clientInformation });
  try {
    const result = await auth(provider, {
      serverUrl: input.url,
      resourceMetadataUrl: input.challenge?.resourceMetadataUrl,
      scope: input.challenge?.scope,
      fetchFn: sdkFetch(input.policy),
    });
    if (result !== "REDIRECT" || !provider.authorizationUrl) throw new Error("the server's authorization server asked for no authorization");
  } catch (error) {
    throw grantFailure(error, "The MCP server's authorization could not be started");
  }
  return { authorizationUrl: provider.authorizationUrl, saved: provider.saved };
}

/** Completes an authorization: the SDK exchanges the code with the PKCE verifier (and `resource`). */
export async function finishMcpAuthorization(input: {
  url: string;
  code: string;
  redirectUri: string;
  state: string;
  saved: McpClientState;
  policy: AddressPolicy;
}): Promise<{ issued: IssuedTokens; saved: McpClientState }> {
  const provider = new StoredMcpAuth(input.redirectUri, input.state, { ...input.saved });
  try {
    const result = await auth(provider, { serverUrl: input.url, authorizationCode: input.code, fetchFn: sdkFetch(input.policy) });
    if (result !== "AUTHORIZED" || !provider.issued) throw new Error("no tokens were issued");
  } catch (error) {
    throw grantFailure(error, "The MCP server's authorization could not be completed");
  }
  const { codeVerifier: _done, ...kept } = provider.saved;
  return { issued: issuedFrom(provider.issued), saved: kept };
}

/** The refresh grant at the server's authorization server, with the registration kept for it. */
export async function refreshMcpTokens(saved: McpClientState, refreshToken: string, policy: AddressPolicy): Promise<IssuedTokens> {
  const discovery = saved.discoveryState;
  if (!discovery?.authorizationServerUrl || !saved.clientInformation)
    throw new GrantRefused("invalid_client", "the registration with the server's authorization server is missing");
  const resource = discovery.resourceMetadata?.resource;
  try {
    const tokens = await refreshAuthorization(discovery.authorizationServerUrl, {
      metadata: discovery.authorizationServerMetadata,
      clientInformation: saved.clientInformation,
      refreshToken,
      resource: resource ? new URL(resource) : undefined,
      fetchFn: sdkFetch(policy),
    });
    return issuedFrom(tokens);
  } catch (error) {
    throw grantFailure(error, "The MCP server's token could not be refreshed");
  }
}

function issuedFrom(tokens: OAuthTokens): IssuedTokens {
  return {
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    tokenType: tokens.token_type,
    expiresAt: typeof tokens.expires_in === "number" && tokens.expires_in > 0 ? new Date(Date.now() + tokens.expires_in * 1000) : null,
    scopes: splitScopes(tokens.scope),
  };
}

/** The SDK's failures as the hub's: a refusal by the authorization server, or a failure that may pass. */
function grantFailure(error: unknown, what: string): GrantRefused | GrantUnavailable {
  if (error instanceof GrantRefused || error instanceof GrantUnavailable) return error;
  if (error instanceof OutboundRefused) return new GrantRefused("refused_address", error.message);
  const transient = error instanceof ServerError || error instanceof TemporarilyUnavailableError || error instanceof TooManyRequestsError;
  if (error instanceof OAuthError && !transient) return new GrantRefused(error.errorCode, error.message);
  return new GrantUnavailable(`${what}: ${error instanceof Error ? error.message.slice(0, 300) : String(error)}`);
}

const clientContext = (uid: string) => `connection:${uid}:oauth_client`;

/** Seals what the hub keeps of an MCP server's registration, bound to the connection. */
export function sealClientState(box: SecretBox, uid: string, saved: McpClientState): Promise<string> {
  return box.seal(JSON.stringify(saved), clientContext(uid));
}

export async function openClientState(box: SecretBox, uid: string, sealed: string | null): Promise<McpClientState> {
  if (!sealed) return {};
  try {
    return JSON.parse(await box.open(sealed, clientContext(uid))) as McpClientState;
  } catch (error) {
    if (error instanceof SecretUnreadable) return {};
    throw error;
  }
}
