import { SignJWT, errors, jwtVerify } from "jose";
import type { Config } from "../core/config";
import { HubError } from "../core/errors";
import { randomToken } from "../lib/crypto";

export const ACCESS_TOKEN_TTL_SECONDS = 3600;
const ALGORITHM = "HS256";
const TOKEN_TYPE = "at+jwt"; // RFC 9068 access-token header type

export interface AccessTokenClaims {
  sub: string;
  scope: string;
  /** The grant the token belongs to; revoking the grant revokes the token. */
  gid: string;
  client_id?: string;
  jti: string;
}

export function signingKey(config: Config): Uint8Array {
  if (!config.jwtSecret) {
    throw new HubError("misconfigured", "JWT_SECRET is not set (at least 32 characters). See the README, Configuration.");
  }
  return config.jwtSecret;
}

export async function signAccessToken(
  config: Config,
  claims: { userId: number; scope: string; grantId: string; clientId?: string | null; resource?: string | null },
): Promise<string> {
  return (
    new SignJWT({ scope: claims.scope, gid: claims.grantId, ...(claims.clientId ? { client_id: claims.clientId } : {}) })
      .setProtectedHeader({ alg: ALGORITHM, typ: TOKEN_TYPE })
      .setIssuer(config.jwtIssuer)
      // RFC 8707: a token asked for a resource is good for that resource only.
      .setAudience(claims.resource ?? config.jwtAudience)
      .setSubject(String(claims.userId))
      .setJti(randomToken(16))
      .setIssuedAt()
      .setExpirationTime(`${ACCESS_TOKEN_TTL_SECONDS}s`)
      .sign(signingKey(config))
  );
}

const hmacKeys = new WeakMap<Uint8Array, Promise<CryptoKey>>();

/** The secret as an HMAC key, imported once per isolate rather than on every verification. */
function verificationKey(config: Config): Promise<CryptoKey> {
  const secret = signingKey(config);
  let key = hmacKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
    hmacKeys.set(secret, key);
  }
  return key;
}

/**
 * Verifies signature (HS256 only), issuer, audience (one of `audiences`, the door's), type and
 * expiry; explains any failure.
 */
export async function verifyAccessToken(config: Config, token: string, audiences: string[] = [config.jwtAudience]): Promise<AccessTokenClaims> {
  try {
    const { payload } = await jwtVerify(token, await verificationKey(config), {
      algorithms: [ALGORITHM],
      issuer: config.jwtIssuer,
      audience: audiences,
      typ: TOKEN_TYPE,
      requiredClaims: ["sub", "jti", "exp", "iat"],
    });
    if (typeof payload.scope !== "string" || typeof payload.gid !== "string" || !payload.sub || !payload.jti) {
      throw new errors.JWTClaimValidationFailed("missing claims", payload);
    }
    return payload as unknown as AccessTokenClaims;
  } catch (error) {
    if (error instanceof HubError) throw error;
    if (error instanceof errors.JWTExpired) throw invalidToken("The access token has expired.");
    if (error instanceof errors.JWTClaimValidationFailed && error.claim === "aud") {
      throw invalidToken("The access token was issued for another resource (its audience is not this endpoint).");
    }
    throw invalidToken("The access token is invalid.");
  }
}

export function invalidToken(detail: string): HubError {
  return new HubError("unauthorized", detail, {
    challenge: `Bearer realm="agent-automation-hub", error="invalid_token", error_description="${detail}"`,
  });
}
