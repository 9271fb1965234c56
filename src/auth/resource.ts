import type { Config } from "../core/config";

/**
 * RFC 8707 resource indicators. A token is bound to the resource it was asked for (its `aud`),
 * so a token obtained for another server cannot be replayed here, and a token for this hub's
 * MCP endpoint is not an API token.
 */

/** The MCP endpoint's path; its resource identifier is `<origin>/mcp`. */
export const MCP_RESOURCE_PATH = "/mcp";

/** Which door a token is presented at. */
export type ResourceDoor = "api" | "mcp";

export type ResourceCheck = { ok: true; resource: string | null } | { ok: false; description: string };

/**
 * A `resource` parameter as RFC 8707 §2 allows it: an absolute http(s) URI without a fragment.
 * Null when absent; the form is canonical (URL parser's spelling, no lone trailing slash) so that
 * the value bound at authorize compares equal to the one presented at the token endpoint.
 */
export function readResource(values: string[]): ResourceCheck {
  if (values.length === 0) return { ok: true, resource: null };
  if (values.length > 1) return { ok: false, description: "Send one resource per request." };
  const canonical = canonicalResource(values[0]!);
  if (!canonical) return { ok: false, description: "resource must be an absolute http(s) URI without a fragment." };
  return { ok: true, resource: canonical };
}

export function canonicalResource(raw: string): string | undefined {
  if (raw.length > 2048 || raw.includes("#")) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  return url.pathname === "/" && !url.search ? url.origin : url.href;
}

/** The hub's own API audience, under its configured name and its addresses on this origin. */
function apiAudiences(config: Config, origin: string): string[] {
  return [config.jwtAudience, origin, `${origin}/v1`];
}

/**
 * The audiences a door accepts: the API takes API tokens only; `/mcp` takes its own and API
 * tokens (DESIGN §5: "`/mcp` accepts tokens whose audience is `<origin>/mcp` or the hub's own
 * API audience").
 */
export function acceptedAudiences(config: Config, origin: string, door: ResourceDoor): string[] {
  const api = apiAudiences(config, origin);
  return door === "mcp" ? [...api, `${origin}${MCP_RESOURCE_PATH}`] : api;
}

/** Whether a resource names this hub (its API or its MCP endpoint) rather than another server. */
export function isOwnResource(config: Config, origin: string, resource: string): boolean {
  return acceptedAudiences(config, origin, "mcp").includes(resource);
}
