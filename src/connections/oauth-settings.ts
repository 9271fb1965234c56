import type { Config } from "../core/config";
import { HubError, type FieldError } from "../core/errors";
import type { TokenEndpointAuth } from "./platforms/oauth-spec";
import type { Platform } from "./platforms/types";

/** Where a platform connection's authorization happens and with which client. */
export interface OAuthSettings {
  authorizeUrl: string;
  tokenUrl: string;
  /** The `iss` authorization responses may carry (RFC 9207). */
  issuer: string | undefined;
  clientId: string;
  clientSecret: string | undefined;
  tokenAuth: TokenEndpointAuth;
  scopes: string[];
  scopeSeparator: string;
  authorizeParams: Readonly<Record<string, string>>;
  tokenTypes: readonly string[];
}

const MAX_SCOPES = 50;

/**
 * The endpoints and client of a platform connection made with OAuth: the platform's own
 * endpoints unless the config overrides them (`authorize_url`, `token_url`, like `base_url`), and
 * the connection's own client (`client_id`, `client_secret`) or else the deployment's
 * (OAUTH_<PLATFORM>_CLIENT_ID / _CLIENT_SECRET). The deployment's client secret only ever goes to
 * the platform's own token endpoint: overriding an endpoint needs a client of the connection's
 * own, or anyone could have the deployment's secret sent to a server of theirs.
 */
export function oauthSettingsFor(platform: Platform, config: Record<string, unknown>, deployment: Config["oauthClients"], scopes?: string[]): OAuthSettings {
  const spec = platform.oauth;
  if (!spec) throw new HubError("validation_failed", `${platform.name} does not connect with OAuth; create the connection with its credentials instead.`);
  const text = (field: string) => (typeof config[field] === "string" && config[field] ? (config[field] as string) : undefined);
  const errors: FieldError[] = [];
  const own = spec.endpointsFor?.(config);
  const authorizeUrl = text("authorize_url") ?? own?.authorizeUrl ?? spec.authorizeUrl;
  const tokenUrl = text("token_url") ?? own?.tokenUrl ?? spec.tokenUrl;
  if (!authorizeUrl) errors.push({ location: "body", field: "config.authorize_url", message: "Give the provider's authorization endpoint." });
  if (!tokenUrl) errors.push({ location: "body", field: "config.token_url", message: "Give the provider's token endpoint." });
  const overridden = Boolean(text("authorize_url") || text("token_url"));
  let clientId = text("client_id");
  let clientSecret = text("client_secret");
  if (!clientId) {
    const app = spec.deploymentClientOf ?? platform.id;
    const own = spec.deploymentClient ? deployment[app as keyof Config["oauthClients"]] : undefined;
    if (overridden) {
      errors.push({
        location: "body",
        field: "config.client_id",
        message: "With authorize_url or token_url overridden, give your own client_id (and client_secret).",
      });
    } else if (!own) {
      const names = `OAUTH_${app.toUpperCase()}_CLIENT_ID and OAUTH_${app.toUpperCase()}_CLIENT_SECRET`;
      errors.push({
        location: "body",
        field: "config.client_id",
        message: spec.deploymentClient
          ? `This deployment has no ${platform.name} app (its operator sets ${names}); give your own app's client_id and client_secret.`
          : "Give your app's client_id.",
      });
    } else {
      clientId = own.clientId;
      clientSecret = own.clientSecret;
    }
  }
  if (errors.length) throw new HubError("validation_failed", `${platform.name} cannot be connected with OAuth as configured.`, { errors });
  const configured = Array.isArray(config.scopes) ? (config.scopes as unknown[]).filter((s): s is string => typeof s === "string") : undefined;
  const chosen = (scopes?.length ? scopes : configured?.length ? configured : [...spec.defaultScopes]).slice(0, MAX_SCOPES);
  const tokenAuth =
    config.token_auth === "client_secret_basic" || config.token_auth === "client_secret_post" ? config.token_auth : (spec.tokenAuth ?? "client_secret_post");
  return {
    authorizeUrl: authorizeUrl!,
    tokenUrl: tokenUrl!,
    // A provider of the config's own says nothing of its issuer: an `iss` it sends back must be at its endpoints' origin.
    issuer: overridden ? undefined : spec.issuer,
    clientId: clientId!,
    clientSecret,
    tokenAuth,
    scopes: chosen,
    scopeSeparator: spec.scopeSeparator ?? " ",
    authorizeParams: spec.authorizeParams ?? {},
    tokenTypes: spec.tokenTypes ?? [],
  };
}

/** Scopes as a provider lists them (space- or comma-separated, as Slack does). */
export function splitScopes(scope: string | undefined | null): string[] | undefined {
  if (typeof scope !== "string") return undefined;
  const scopes = scope
    .split(/[\s,]+/)
    .filter(Boolean)
    .slice(0, 200);
  return scopes.length ? scopes : undefined;
}
