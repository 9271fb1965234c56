import { and, eq, gt, isNull, lt, notExists } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { authorizationCodes, grants, oauthApps, type OAuthApp } from "../db/schema";
import { randomToken } from "../lib/crypto";
import { type Scope, formatScopes, isScope, readScopes } from "../core/scopes";
import { redirectUriProblem } from "./oauth-apps";

/** What a client that registers itself may ask for: what an MCP client needs, never account management. */
const SELF_REGISTERED_SCOPES: Scope[] = ["data:read", "data:write", "workflow:execute"];
const DEFAULT_SCOPES: Scope[] = ["data:read", "workflow:execute"];
/** A self-registered client nobody has approved within this time is removed. */
export const UNUSED_CLIENT_TTL_MS = 24 * 3600 * 1000;

/** RFC 7591 §3.2.2: `{error, error_description}` with 400. */
export class RegistrationError extends Error {
  constructor(
    readonly error: "invalid_client_metadata" | "invalid_redirect_uri",
    description: string,
  ) {
    super(description);
  }
}

const Metadata = z.object({
  redirect_uris: z.array(z.string().max(2000)).min(1).max(10),
  client_name: z.string().trim().min(1).max(100).optional(),
  token_endpoint_auth_method: z.string().optional(),
  grant_types: z.array(z.string()).max(5).optional(),
  response_types: z.array(z.string()).max(5).optional(),
  scope: z.string().max(200).optional(),
});

/**
 * RFC 7591 dynamic client registration, for public clients only (an MCP client on someone's
 * machine cannot keep a secret): no secret is issued, PKCE is required at authorize, redirect
 * URIs must be https or loopback http, and the client acts only for a person who approves it.
 */
export async function registerPublicClient(db: Db, body: unknown) {
  const parsed = Metadata.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new RegistrationError("invalid_client_metadata", `${issue.path.join(".") || "body"}: ${issue.message}`);
  }
  const metadata = parsed.data;
  if ((metadata.token_endpoint_auth_method ?? "none") !== "none") {
    throw new RegistrationError(
      "invalid_client_metadata",
      'Only public clients (token_endpoint_auth_method "none", with PKCE) register here; apps that keep a secret are created at POST /v1/auth/apps.',
    );
  }
  const grantTypes = metadata.grant_types ?? ["authorization_code", "refresh_token"];
  if (!grantTypes.every((g) => g === "authorization_code" || g === "refresh_token")) {
    throw new RegistrationError("invalid_client_metadata", "grant_types may hold authorization_code and refresh_token.");
  }
  if (!(metadata.response_types ?? ["code"]).every((r) => r === "code")) {
    throw new RegistrationError("invalid_client_metadata", 'response_types may hold only "code".');
  }
  for (const uri of metadata.redirect_uris) {
    // Judged as on production whatever the deployment: https, or http to a loopback address.
    const problem = redirectUriProblem(uri, "production");
    if (problem) throw new RegistrationError("invalid_redirect_uri", `${uri}: ${problem}`);
  }
  // An empty scope is taken as none given: a client with no scopes could do nothing.
  const listed = metadata.scope?.split(" ").filter(Boolean) ?? [];
  const requested = listed.length ? listed : DEFAULT_SCOPES;
  if (!requested.every((s) => isScope(s) && SELF_REGISTERED_SCOPES.includes(s))) {
    throw new RegistrationError("invalid_client_metadata", `scope may hold ${SELF_REGISTERED_SCOPES.join(", ")}.`);
  }
  const [app] = await db
    .insert(oauthApps)
    .values({
      clientId: `ahc_${randomToken(16)}`,
      clientSecretHash: null,
      userId: null,
      name: metadata.client_name ?? "MCP client",
      redirectUris: [...new Set(metadata.redirect_uris)],
      scopes: formatScopes(requested as Scope[]),
    })
    .returning();
  return presentRegistration(app!, grantTypes);
}

function presentRegistration(app: OAuthApp, grantTypes: string[]) {
  return {
    client_id: app.clientId,
    client_id_issued_at: Math.floor(app.createdAt.getTime() / 1000),
    client_name: app.name,
    redirect_uris: app.redirectUris,
    grant_types: grantTypes,
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    scope: readScopes(app.scopes).join(" "),
  };
}

/**
 * Housekeeping: self-registered clients that have no grant (and no code waiting to be exchanged)
 * a day after registering are removed.
 */
export async function removeUnusedClients(db: Db, now = Date.now()): Promise<number> {
  const removed = await db
    .delete(oauthApps)
    .where(
      and(
        isNull(oauthApps.userId),
        lt(oauthApps.createdAt, new Date(now - UNUSED_CLIENT_TTL_MS)),
        notExists(db.select({ one: grants.id }).from(grants).where(eq(grants.clientId, oauthApps.clientId))),
        notExists(
          db
            .select({ one: authorizationCodes.codeHash })
            .from(authorizationCodes)
            .where(and(eq(authorizationCodes.clientId, oauthApps.clientId), gt(authorizationCodes.expiresAt, new Date(now)))),
        ),
      ),
    )
    .returning({ id: oauthApps.id });
  return removed.length;
}
