import { text } from "./failures";
import type { PlatformOAuth } from "./oauth-spec";
import type { PlatformFailure } from "./types";

/**
 * Google's OAuth for one of its APIs (developers.google.com/identity/protocols/oauth2/web-server):
 * offline access for a refresh token, and the deployment's one Google app (OAUTH_GOOGLE_CLIENT_ID),
 * which serves every Google API the person consents to.
 */
export function googleOAuth(scopes: readonly string[]): PlatformOAuth {
  return {
    authorizeUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    issuer: "https://accounts.google.com",
    defaultScopes: scopes,
    authorizeParams: { access_type: "offline", prompt: "consent", include_granted_scopes: "true" },
    tokenField: "access_token",
    deploymentClient: true,
    deploymentClientOf: "google",
  };
}

/** Google's quota reasons: a 403 that passes (cloud.google.com/apis/design/errors, Gmail's usage limits). */
const RATE_REASONS = new Set(["rateLimitExceeded", "userRateLimitExceeded", "quotaExceeded", "backendError"]);

/**
 * Google APIs' error reader: `{error: {code, message, status, errors?: [{reason, message}]}}`. A
 * 401 is the token's fault (refreshed once, then the connection's); a 403 for a missing scope
 * (PERMISSION_DENIED, insufficientPermissions) is not; rate limits pass, even as a 403.
 */
export function readGoogleError(status: number, body: any): PlatformFailure | undefined {
  const error = body?.error;
  if (status < 400 || !error || typeof error !== "object") return undefined;
  const reason = text(error.errors?.[0]?.reason, 100);
  const code = reason ?? text(error.status, 100);
  return {
    message: text(error.message, 400) ?? code ?? "",
    code,
    authFailure: status === 401 ? "error" : null,
    retryable: reason && RATE_REASONS.has(reason) ? true : undefined,
  };
}
