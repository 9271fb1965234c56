import { z } from "@hono/zod-openapi";
import type { Platform } from "./types";

export type TokenEndpointAuth = "client_secret_post" | "client_secret_basic";

/**
 * How a platform's connections are made with OAuth 2.0: authorization code with PKCE at the
 * provider's endpoints, then the access token is put into the config field `tokenField` for each
 * call, so the platform's own `authHeaders` send it as they send a pasted token.
 */
export interface PlatformOAuth {
  /** The provider's authorization endpoint; a config's `authorize_url` overrides it. Absent: the config must give it. */
  authorizeUrl?: string;
  /** The provider's token endpoint; a config's `token_url` overrides it. Absent: the config must give it. */
  tokenUrl?: string;
  /**
   * The provider's own endpoints for one connection's config, where they depend on it (Microsoft's
   * tenant in the path); `authorizeUrl`/`tokenUrl` otherwise. The config's `authorize_url` and
   * `token_url` still win. They must stay the provider's, as the deployment's client secret may go there.
   */
  endpointsFor?(config: Record<string, unknown>): { authorizeUrl: string; tokenUrl: string };
  /** The `iss` the provider puts on its authorization responses (RFC 9207), where it sends one. */
  issuer?: string;
  /** Scopes asked for when neither the start nor the config names any. */
  defaultScopes: readonly string[];
  /** How the `scope` parameter joins scopes: " " (RFC 6749) unless the provider wants otherwise (Slack: ","). */
  scopeSeparator?: string;
  /** How the client authenticates at the token endpoint (default client_secret_post); a config's `token_auth` overrides it. */
  tokenAuth?: TokenEndpointAuth;
  /** Extra authorization request parameters (Google: access_type=offline for a refresh token). */
  authorizeParams?: Readonly<Record<string, string>>;
  /** Token types the provider answers with besides Bearer (Slack: "bot"). */
  tokenTypes?: readonly string[];
  /** The config field the access token fills for each call (Slack: bot_token). */
  tokenField: string;
  /** Whether the deployment may bring the client (secrets OAUTH_<PLATFORM>_CLIENT_ID / _CLIENT_SECRET). */
  deploymentClient: boolean;
  /** The platform whose deployment client this one uses (Gmail and Sheets: Google's one app); default: its own. */
  deploymentClientOf?: "google" | "slack" | "hubspot";
  /**
   * The config of a connection made with OAuth, when the platform also takes pasted tokens (whose
   * config requires the token); absent, the platform's own config. Its secrets in `secretFields`.
   */
  config?: z.ZodType;
  secretFields?: readonly string[];
}

/** Config fields of a native platform's OAuth connection: the provider's endpoints (tests point them at fakes) and a client of the connection's own. */
export const oauthConfigFields = {
  authorize_url: z
    .string()
    .url()
    .max(2000)
    .optional()
    .meta({ description: "Override the provider's authorization endpoint (with client_id: the deployment's client only goes to the provider's own)." }),
  token_url: z.string().url().max(2000).optional().meta({ description: "Override the provider's token endpoint (with client_id)." }),
  client_id: z.string().min(1).max(500).optional().meta({ description: "Your own OAuth app's client id; default: the deployment's app." }),
  client_secret: z.string().min(1).max(4096).optional().meta({ description: "Your own OAuth app's client secret.", writeOnly: true, "x-secret": true }),
};

const shapes = new WeakMap<Platform, Platform>();

/**
 * The platform as a connection of this kind sees it: its OAuth config and secrets for a connection
 * made with OAuth (`auth_mode` "oauth2"), else the platform itself.
 */
export function platformFor(platform: Platform, authMode: "config" | "oauth2"): Platform {
  const oauth = platform.oauth;
  if (authMode !== "oauth2" || !oauth?.config) return platform;
  let shape = shapes.get(platform);
  if (!shape) {
    shape = { ...platform, config: oauth.config, secretFields: oauth.secretFields ?? [] };
    shapes.set(platform, shape);
  }
  return shape;
}
