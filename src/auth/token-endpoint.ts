import type { Context } from "hono";
import { Hono } from "hono";
import type { Db } from "../db/client";
import type { AppEnv } from "../http/app-env";
import { clientAddress, consumeRateLimits, exhaustedOf, rateLimitHeaders } from "../http/rate-limit";
import { PKCE_VERIFIER, claimAuthorizationCode, findAuthorizationCode, pkceMatches, punishCodeReuse } from "./authorization-codes";

import { consumeRefreshToken, createGrant, issueTokens, revokeGrant } from "./grants";
import { authenticateClient, findActiveApp } from "./oauth-apps";
import { formatScopes, isScope, isSubset, readScopes, type Scope } from "../core/scopes";
import type { OAuthApp } from "../db/schema";
import { isOwnResource, readResource } from "./resource";

/** An RFC 6749 §5.2 error, rendered as `{error, error_description}`. */
class OAuthError extends Error {
  constructor(
    readonly error: string,
    description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

type Form = URLSearchParams;

/** POST /v1/auth/token: client_credentials, authorization_code (with PKCE) and refresh_token. */
export const tokenEndpoint = new Hono<AppEnv>().post("/auth/token", async (c) => {
  try {
    // An address that keeps failing client authentication is stopped before secrets are checked.
    await limitAddress(c, 0);
    const form = await readForm(c);
    const grantType = form.get("grant_type");
    const db = c.get("db");
    let body: Awaited<ReturnType<typeof clientCredentials>>;
    if (grantType === "client_credentials") body = await clientCredentials(c, db, form);
    else if (grantType === "authorization_code") body = await authorizationCode(c, db, form);
    else if (grantType === "refresh_token") body = await refreshToken(c, db, form);
    else if (!grantType) throw new OAuthError("invalid_request", "grant_type is required.");
    else throw new OAuthError("unsupported_grant_type", `grant_type "${grantType}" is not supported.`);
    return c.json(body, 200, { "Cache-Control": "no-store", Pragma: "no-cache" });
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return c.json({ error: error.error, error_description: error.message }, error.status as 400 | 401 | 429, {
      ...error.headers,
      "Cache-Control": "no-store",
      Pragma: "no-cache",
    });
  }
});

async function readForm(c: Context<AppEnv>): Promise<Form> {
  const type = c.req.header("Content-Type") ?? "";
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
    throw new OAuthError("invalid_request", "The token request must be application/x-www-form-urlencoded.");
  }
  const form = new URLSearchParams(new TextDecoder().decode(await c.req.arrayBuffer()));
  const keys = [...form.keys()];
  const repeated = keys.find((key, i) => keys.indexOf(key) !== i);
  if (repeated) throw new OAuthError("invalid_request", `Parameter "${repeated}" was sent more than once.`);
  return form;
}

/**
 * Client authentication by HTTP Basic (client_secret_basic) or form fields (client_secret_post).
 * With `publicAllowed`, a public client (registered dynamically, no secret) names itself with
 * `client_id` alone (`none`): it proved itself with PKCE when it got its code.
 */
async function requireClient(c: Context<AppEnv>, db: Db, form: Form, options: { publicAllowed?: boolean } = {}): Promise<OAuthApp> {
  const basic = parseBasic(c.req.header("Authorization"));
  const posted = form.get("client_secret");
  if (basic && posted) throw new OAuthError("invalid_request", "Use one client authentication method, not two.");
  const clientId = basic?.id ?? form.get("client_id");
  const secret = basic?.secret ?? posted;
  if (clientId && !secret && options.publicAllowed) {
    const app = await findActiveApp(db, clientId);
    if (app && app.clientSecretHash === null) {
      await enforce(c, `client:${app.clientId}`, [{ name: "token_requests", limit: c.get("config").limits.requestsPerMinute }], 1);
      return app;
    }
  }
  if (!clientId || !secret) {
    await limitAddress(c, 1);
    throw new OAuthError("invalid_client", "Client authentication is required (client_id and client_secret).", 401, {
      "WWW-Authenticate": `Basic realm="agent-automation-hub"`,
    });
  }
  if (basic && form.get("client_id") && form.get("client_id") !== basic.id) {
    throw new OAuthError("invalid_request", "client_id does not match the authenticated client.");
  }
  const app = await authenticateClient(db, clientId, secret);
  if (!app) {
    await limitAddress(c, 1);
    throw new OAuthError("invalid_client", "Unknown client or wrong client secret.", 401, {
      "WWW-Authenticate": `Basic realm="agent-automation-hub"`,
    });
  }
  // An authenticated client gets a budget of its own, so a backend serving many users is not
  // throttled by its shared address.
  await enforce(c, `client:${app.clientId}`, [{ name: "token_requests", limit: c.get("config").limits.requestsPerMinute }], 1);
  return app;
}

/** Failed client authentications and client-less refreshes count against the caller's address. */
function limitAddress(c: Context<AppEnv>, cost: 0 | 1) {
  return enforce(c, `addr:${clientAddress(c)}`, [{ name: "auth", limit: c.get("config").limits.authAttemptsPerMinute }], cost);
}

async function enforce(c: Context<AppEnv>, subject: string, counters: { name: string; limit: number }[], cost: 0 | 1) {
  const results = await consumeRateLimits(c.get("runtime").bindings.RATE_LIMITER, subject, counters, cost);
  const hit = exhaustedOf(results);
  if (hit) {
    // RFC 8628 registers slow_down for the token endpoint; clients back off on it.
    throw new OAuthError("slow_down", `Too many token requests; retry in ${hit.resetSeconds} s.`, 429, {
      ...rateLimitHeaders(results),
      "Retry-After": String(hit.resetSeconds),
    });
  }
}

function parseBasic(header: string | undefined): { id: string; secret: string } | undefined {
  const match = header?.match(/^Basic\s+([A-Za-z0-9+/=]+)\s*$/i);
  if (!match) return undefined;
  try {
    const decoded = atob(match[1]!);
    const colon = decoded.indexOf(":");
    if (colon < 0) return undefined;
    // RFC 6749 §2.3.1: both parts are form-urlencoded before being joined.
    return { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/** The requested scope, which must lie within `allowed`; no scope parameter means all of `allowed`. */
function narrowScope(requested: string | null, allowed: Scope[]): Scope[] {
  // An empty scope parameter is treated like an absent one, as several client libraries send it.
  if (requested === null || requested.trim() === "") return allowed;
  const parts = requested.split(" ").filter(Boolean);
  if (parts.length === 0 || !parts.every(isScope)) throw new OAuthError("invalid_scope", "Unknown scope requested.");
  if (!isSubset(parts, allowed)) throw new OAuthError("invalid_scope", "The requested scope exceeds what was granted.");
  return parts as Scope[];
}

/**
 * RFC 8707 at the token endpoint: the resource the token is for. Where the authorization named
 * one, a token is for that one only; where it named none (the hub's API), a request may narrow it
 * to another of the hub's own resources but never widen it to a foreign server, which the person
 * never saw on the consent page. `unconsented` grants (client credentials) may name any resource.
 */
function tokenResource(c: Context<AppEnv>, form: Form, authorized: string | null, unconsented = false): string | null {
  const asked = readResource(form.getAll("resource"));
  if (!asked.ok) throw new OAuthError("invalid_target", asked.description);
  if (authorized) {
    if (asked.resource && asked.resource !== authorized) throw new OAuthError("invalid_target", "The resource differs from the one that was authorized.");
    return authorized;
  }
  if (!asked.resource || unconsented) return asked.resource;
  if (!isOwnResource(c.get("config"), new URL(c.req.url).origin, asked.resource)) {
    throw new OAuthError("invalid_target", "This authorization was not granted for that resource.");
  }
  return asked.resource;
}

async function clientCredentials(c: Context<AppEnv>, db: Db, form: Form) {
  const app = await requireClient(c, db, form);
  // A client that registered itself acts for whoever approves it, never on its own.
  if (app.userId === null) throw new OAuthError("unauthorized_client", "This client may not use client_credentials.");
  const scopes = narrowScope(form.get("scope"), readScopes(app.scopes));
  const resource = tokenResource(c, form, null, true);
  const grant = await createGrant(db, {
    userId: app.userId,
    kind: "client_credentials",
    scopes: formatScopes(scopes),
    clientId: app.clientId,
    resource,
  });
  return issueTokens(db, c.get("config"), grant);
}

async function authorizationCode(c: Context<AppEnv>, db: Db, form: Form) {
  const app = await requireClient(c, db, form, { publicAllowed: true });
  const code = form.get("code");
  if (!code) throw new OAuthError("invalid_request", "code is required.");
  const row = await findAuthorizationCode(db, code);
  if (!row || row.clientId !== app.clientId) throw new OAuthError("invalid_grant", "The authorization code is invalid.");
  if (row.usedAt) {
    await punishCodeReuse(db, row.codeHash);
    throw new OAuthError("invalid_grant", "The authorization code was already used; tokens issued from it are revoked.");
  }
  if (row.expiresAt.getTime() < Date.now()) throw new OAuthError("invalid_grant", "The authorization code has expired.");
  if (form.get("redirect_uri") !== row.redirectUri) {
    throw new OAuthError("invalid_grant", "redirect_uri does not match the one used to obtain the code.");
  }
  const verifier = form.get("code_verifier");
  if (row.codeChallenge) {
    if (!verifier || !PKCE_VERIFIER.test(verifier)) throw new OAuthError("invalid_grant", "A valid code_verifier is required.");
    if (!(await pkceMatches(verifier, row.codeChallenge))) throw new OAuthError("invalid_grant", "code_verifier does not match the code_challenge.");
  } else if (verifier) {
    throw new OAuthError("invalid_grant", "code_verifier sent, but the authorization request had no code_challenge.");
  } else if (app.clientSecretHash === null) {
    throw new OAuthError("invalid_grant", "A public client must use PKCE.");
  }
  const resource = tokenResource(c, form, row.resource);
  const grant = await createGrant(db, { userId: row.userId, kind: "authorization_code", scopes: row.scopes, clientId: app.clientId, resource });
  if (!(await claimAuthorizationCode(db, row.codeHash, grant.id))) {
    // Lost a race with another exchange of the same code: that is reuse too.
    await revokeGrant(db, grant.id);
    await punishCodeReuse(db, row.codeHash);
    throw new OAuthError("invalid_grant", "The authorization code was already used; tokens issued from it are revoked.");
  }
  return issueTokens(db, c.get("config"), grant);
}

async function refreshToken(c: Context<AppEnv>, db: Db, form: Form) {
  const token = form.get("refresh_token");
  if (!token) throw new OAuthError("invalid_request", "refresh_token is required.");
  // Tokens from an OAuth app need that app's authentication; login sessions have no client.
  const sentClient = Boolean(form.get("client_id") || form.get("client_secret") || parseBasic(c.req.header("Authorization")));
  const app = sentClient ? await requireClient(c, db, form, { publicAllowed: true }) : undefined;
  if (!app) await limitAddress(c, 1);
  let resource: string | null = null;
  const outcome = await consumeRefreshToken(db, token, app?.clientId ?? null, (grant) => {
    resource = tokenResource(c, form, grant.resource);
  });
  if (!outcome.ok) {
    const why = {
      unknown: "The refresh token is invalid.",
      expired: "The refresh token has expired.",
      reused: "The refresh token was already used; the session is revoked. Sign in again.",
      revoked: "The refresh token has been revoked.",
      wrong_client: "The refresh token was not issued to this client.",
    }[outcome.reason];
    throw new OAuthError("invalid_grant", why);
  }
  const { grant } = outcome;
  const scopes = narrowScope(form.get("scope"), readScopes(grant.scopes));
  return issueTokens(db, c.get("config"), grant, formatScopes(scopes), resource);
}
