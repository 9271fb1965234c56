import type { Db } from "../../db/client";
import type { OAuthApp } from "../../db/schema";
import { PKCE_CHALLENGE } from "../authorization-codes";
import { findActiveApp } from "../oauth-apps";
import { isScope, isSubset, readScopes, type Scope } from "../../core/scopes";
import { readResource } from "../resource";

/** A validated authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3). */
export interface AuthorizeRequest {
  app: OAuthApp;
  redirectUri: string;
  scopes: Scope[];
  state: string | null;
  codeChallenge: string | null;
  /** RFC 8707: the resource the tokens will be for; null for the hub's own API. */
  resource: string | null;
}

/**
 * Problems found before the redirect URI is trusted are shown on our own page (never redirected,
 * so the endpoint cannot be used as an open redirector); later ones go back to the client.
 */
export type AuthorizeCheck =
  | { kind: "ok"; request: AuthorizeRequest }
  | { kind: "page_error"; message: string }
  | { kind: "redirect_error"; redirectUri: string; state: string | null; error: string; description: string };

export async function checkAuthorizeRequest(db: Db, query: URLSearchParams): Promise<AuthorizeCheck> {
  const clientId = query.get("client_id");
  if (!clientId) return { kind: "page_error", message: "The request has no client_id." };
  const app = await findActiveApp(db, clientId);
  if (!app) return { kind: "page_error", message: "No application is registered with this client_id." };
  const redirectUri = query.get("redirect_uri");
  if (!redirectUri) return { kind: "page_error", message: "The request has no redirect_uri." };
  if (!app.redirectUris.includes(redirectUri)) {
    return { kind: "page_error", message: "The redirect_uri is not registered for this application." };
  }

  const state = query.get("state");
  // Anyone can register a client with any https redirect URI, so for a self-registered client an
  // error is shown here rather than sent there: the hub must not bounce strangers to any address.
  const fail = (error: string, description: string): AuthorizeCheck =>
    app.userId === null ? { kind: "page_error", message: `${description} (${error})` } : { kind: "redirect_error", redirectUri, state, error, description };
  if (query.get("response_type") !== "code") return fail("unsupported_response_type", "Only response_type=code is supported.");

  const allowed = readScopes(app.scopes);
  const requested = (query.get("scope") ?? "").split(" ").filter(Boolean);
  if (!requested.every(isScope)) return fail("invalid_scope", "Unknown scope requested.");
  if (!isSubset(requested, allowed)) return fail("invalid_scope", "The app is not allowed a requested scope.");
  const scopes = requested.length ? [...new Set(requested)] : allowed;

  const challenge = query.get("code_challenge");
  const method = query.get("code_challenge_method");
  if (challenge) {
    if ((method ?? "plain") !== "S256") return fail("invalid_request", "Only code_challenge_method=S256 is supported.");
    if (!PKCE_CHALLENGE.test(challenge)) return fail("invalid_request", "code_challenge must be 43 base64url characters.");
  } else if (method) {
    return fail("invalid_request", "code_challenge_method given without code_challenge.");
  } else if (app.clientSecretHash === null) {
    return fail("invalid_request", "This client has no secret, so it must use PKCE: send code_challenge with code_challenge_method=S256.");
  }
  const resource = readResource(query.getAll("resource"));
  if (!resource.ok) return fail("invalid_target", resource.description);
  return { kind: "ok", request: { app, redirectUri, scopes, state, codeChallenge: challenge, resource: resource.resource } };
}

/** The client's redirect URI with our parameters added to whatever query it already has. */
export function redirectBack(redirectUri: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.set(name, value);
  return url.toString();
}
