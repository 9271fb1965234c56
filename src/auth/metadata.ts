import { Hono } from "hono";
import type { AppEnv } from "../http/app-env";
import { ALL_SCOPES } from "../core/scopes";

/**
 * RFC 8414 authorization server metadata, so OAuth client libraries can discover the endpoints
 * instead of being configured by hand. The issuer is this deployment's origin.
 */
export const oauthMetadata = new Hono<AppEnv>().get("/.well-known/oauth-authorization-server", (c) => {
  const origin = new URL(c.req.url).origin;
  c.header("Cache-Control", "public, max-age=3600");
  return c.json({
    issuer: origin,
    authorization_endpoint: `${origin}/auth/authorize`,
    token_endpoint: `${origin}/v1/auth/token`,
    registration_endpoint: `${origin}/v1/auth/register-client`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "client_credentials", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    // "none": public clients registered dynamically, which prove themselves with PKCE.
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
    scopes_supported: ALL_SCOPES,
    service_documentation: `${origin}/docs`,
  });
});
