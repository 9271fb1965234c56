import * as oauth from "oauth4webapi";
import type { AddressPolicy } from "../net/address-policy";
import { OutboundRefused, guardedFetch } from "../net/safe-fetch";
import type { OAuthSettings } from "./oauth-settings";
import { splitScopes } from "./oauth-settings";

// The OAuth 2.0 client side of platform connections, on oauth4webapi: PKCE, the authorization
// request, the code exchange and the refresh grant. Every request to the provider goes through the
// outbound guard, with a deadline and a size cap.

/** Largest token endpoint answer read. */
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;
const TOKEN_TIMEOUT_MS = 15_000;

/** What a token endpoint issued. */
export interface IssuedTokens {
  accessToken: string;
  refreshToken: string | undefined;
  tokenType: string;
  expiresAt: Date | null;
  /** The granted scopes, when the provider says. */
  scopes: string[] | undefined;
}

/** The provider refused the grant (invalid_grant, invalid_client…): asking again with the same grant cannot succeed. */
export class GrantRefused extends Error {
  constructor(
    readonly error: string,
    description?: string,
  ) {
    super(description ? `${error}: ${description.slice(0, 300)}` : error);
  }
}

/** The provider could not be reached or failed on its side (5xx): the grant may work later. */
export class GrantUnavailable extends Error {}

/** The authorization request's URL and the PKCE verifier to keep for the exchange. */
export async function authorizationRequest(
  settings: OAuthSettings,
  request: { redirectUri: string; state: string },
): Promise<{ url: URL; codeVerifier: string }> {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const url = new URL(settings.authorizeUrl);
  for (const [name, value] of Object.entries(settings.authorizeParams)) url.searchParams.set(name, value);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", settings.clientId);
  url.searchParams.set("redirect_uri", request.redirectUri);
  url.searchParams.set("state", request.state);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(codeVerifier));
  url.searchParams.set("code_challenge_method", "S256");
  if (settings.scopes.length) url.searchParams.set("scope", settings.scopes.join(settings.scopeSeparator));
  return { url, codeVerifier };
}

/** Exchanges the authorization response's code (with the PKCE verifier) at the token endpoint. */
export async function exchangeCode(
  settings: OAuthSettings,
  response: { parameters: URLSearchParams; state: string; redirectUri: string; codeVerifier: string },
  policy: AddressPolicy,
): Promise<IssuedTokens> {
  const { as, client, clientAuth } = parties(settings, response.parameters.get("iss") ?? undefined);
  let callback: URLSearchParams;
  try {
    callback = oauth.validateAuthResponse(as, client, response.parameters, response.state);
  } catch (error) {
    if (error instanceof oauth.AuthorizationResponseError) throw new GrantRefused(error.error, error.error_description);
    throw new GrantRefused("invalid_response", error instanceof Error ? error.message : String(error));
  }
  return tokenRequest(
    settings,
    policy,
    (options) => oauth.authorizationCodeGrantRequest(as, client, clientAuth, callback, response.redirectUri, response.codeVerifier, options),
    (answer, options) => oauth.processAuthorizationCodeResponse(as, client, answer, options),
  );
}

/** The refresh grant: new tokens for a refresh token (which the provider may rotate). */
export async function refreshGrant(settings: OAuthSettings, refreshToken: string, policy: AddressPolicy): Promise<IssuedTokens> {
  const { as, client, clientAuth } = parties(settings);
  const issued = await tokenRequest(
    settings,
    policy,
    (options) => oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshToken, options),
    (answer, options) => oauth.processRefreshTokenResponse(as, client, answer, options),
  );
  // A provider that does not rotate answers without one: the refresh token stays the same.
  return { ...issued, refreshToken: issued.refreshToken ?? refreshToken };
}

function parties(settings: OAuthSettings, sentIssuer?: string) {
  const tokenUrl = new URL(settings.tokenUrl);
  const as: oauth.AuthorizationServer = {
    // A provider that names no issuer of its own is known by its endpoints. An `iss` it sends back
    // (RFC 9207) must then be one of their origins: taken as sent, it would let any server's
    // answer pass for this one's, and the mix-up check would check nothing.
    issuer: settings.issuer ?? (sentIssuer && issuerOfEndpoints(sentIssuer, settings) ? sentIssuer : tokenUrl.origin),
    authorization_endpoint: settings.authorizeUrl,
    token_endpoint: settings.tokenUrl,
  };
  const client: oauth.Client = { client_id: settings.clientId };
  const clientAuth = !settings.clientSecret
    ? oauth.None()
    : settings.tokenAuth === "client_secret_basic"
      ? oauth.ClientSecretBasic(settings.clientSecret)
      : oauth.ClientSecretPost(settings.clientSecret);
  return { as, client, clientAuth };
}

/** Whether `issuer` is a URL at the origin of the authorization or token endpoint. */
function issuerOfEndpoints(issuer: string, settings: OAuthSettings): boolean {
  let origin: string;
  try {
    origin = new URL(issuer).origin;
  } catch {
    return false;
  }
  return [settings.authorizeUrl, settings.tokenUrl].some((endpoint) => new URL(endpoint).origin === origin);
}

async function tokenRequest(
  settings: OAuthSettings,
  policy: AddressPolicy,
  send: (options: oauth.TokenEndpointRequestOptions) => Promise<Response>,
  process: (response: Response, options: oauth.ProcessTokenResponseOptions) => Promise<oauth.TokenEndpointResponse>,
): Promise<IssuedTokens> {
  const options: oauth.TokenEndpointRequestOptions = {
    [oauth.customFetch]: guardedFetch(policy, MAX_TOKEN_RESPONSE_BYTES),
    // Plain http only where user-given URLs may reach private networks (local development, tests).
    [oauth.allowInsecureRequests]: policy.allowPrivateNetworks,
    signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
  };
  let response: Response;
  try {
    response = await send(options);
  } catch (error) {
    if (error instanceof OutboundRefused) throw new GrantRefused("refused_address", error.message);
    if (error instanceof oauth.OperationProcessingError && error.code === oauth.HTTP_REQUEST_FORBIDDEN)
      throw new GrantRefused("insecure_endpoint", "the token endpoint must use https");
    throw new GrantUnavailable(`The token endpoint could not be reached: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (response.status >= 500) {
    await response.body?.cancel();
    throw new GrantUnavailable(`The token endpoint answered ${response.status}.`);
  }
  const peek: any = await response
    .clone()
    .json()
    .catch(() => undefined);
  // Slack-style APIs answer a refused grant with 200 and {ok: false, error}.
  if (peek && typeof peek === "object" && peek.ok === false && typeof peek.error === "string") throw new GrantRefused(String(peek.error).slice(0, 100));
  if (peek && typeof peek === "object" && peek.id_token !== undefined && !settings.issuer) {
    // An ID token from a provider whose issuer is not known here cannot be checked, and no call uses it.
    const { id_token: _unused, ...rest } = peek;
    response = new Response(JSON.stringify(rest), { status: response.status, headers: response.headers });
  }
  const recognizedTokenTypes = Object.fromEntries(settings.tokenTypes.map((type) => [type.toLowerCase(), () => undefined]));
  try {
    return issuedFrom(await process(response, { recognizedTokenTypes }));
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) throw new GrantRefused(error.error, error.error_description);
    if (error instanceof oauth.WWWAuthenticateChallengeError) throw new GrantRefused("invalid_client", "the token endpoint refused the client");
    throw new GrantRefused("invalid_response", error instanceof Error ? error.message : String(error));
  }
}

function issuedFrom(body: oauth.TokenEndpointResponse): IssuedTokens {
  return {
    accessToken: body.access_token,
    refreshToken: body.refresh_token,
    tokenType: body.token_type,
    expiresAt: typeof body.expires_in === "number" && body.expires_in > 0 ? new Date(Date.now() + body.expires_in * 1000) : null,
    scopes: splitScopes(body.scope),
  };
}
