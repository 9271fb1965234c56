import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/app-env";
import { TokenResponseSchema } from "./schemas";

const OAuthErrorSchema = z
  .object({
    error: z.enum(["invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "invalid_scope", "invalid_target"]),
    error_description: z.string(),
  })
  .openapi("OAuthError", { description: "RFC 6749 §5.2 error." });

/**
 * The token endpoint is form-encoded and answers RFC 6749 errors rather than problem details,
 * so it is served by a plain handler and only described here.
 */
export function describeTokenEndpoint(v1: OpenAPIHono<AppEnv, any, any>) {
  v1.openAPIRegistry.registerPath({
    method: "post",
    path: "/auth/token",
    tags: ["Authentication"],
    summary: "OAuth 2.0 token endpoint",
    description: [
      "Grants: `client_credentials` (acts for the app's owner within the app's scopes; no refresh token),",
      "`authorization_code` (code from `/auth/authorize`, single use, valid 10 minutes; PKCE S256 verified when the request had a `code_challenge`;",
      "a code presented twice revokes the tokens issued from it) and `refresh_token` (rotation: each refresh token works once, and presenting",
      "a used one revokes the whole grant). Clients authenticate with HTTP Basic or with `client_id` and `client_secret` form fields.",
      "Login refresh tokens (from `/v1/auth/login`) need no client. Access tokens are JWTs valid for 1 hour.",
      "RFC 8707 `resource` (also at `/auth/authorize`) binds the token's audience: a token for `<origin>/mcp` works at `/mcp` only,",
      "a token for another server works nowhere here; without it a token is for the API (and `/mcp`). A refresh keeps the authorized resource.",
    ].join(" "),
    security: [],
    request: {
      body: {
        required: true,
        content: {
          "application/x-www-form-urlencoded": {
            schema: z.object({
              grant_type: z.enum(["client_credentials", "authorization_code", "refresh_token"]),
              client_id: z.string().optional(),
              client_secret: z.string().optional(),
              scope: z.string().optional().openapi({ description: "Space-separated, e.g. `data:read workflow:execute`." }),
              code: z.string().optional(),
              redirect_uri: z.string().optional(),
              code_verifier: z.string().optional(),
              refresh_token: z.string().optional(),
              resource: z.string().optional().openapi({ description: "RFC 8707 resource indicator: an absolute URI, e.g. `<origin>/mcp`." }),
            }),
          },
        },
      },
    },
    responses: {
      200: { description: "Tokens issued", content: { "application/json": { schema: TokenResponseSchema } } },
      400: { description: "RFC 6749 error", content: { "application/json": { schema: OAuthErrorSchema } } },
      401: { description: "Client authentication failed (`invalid_client`)", content: { "application/json": { schema: OAuthErrorSchema } } },
      429: { description: "Too many requests from this address" },
    },
  });
}
