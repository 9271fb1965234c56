import type { ServiceContext } from "../core/context";
import { requirePlatformFor, validateConfig } from "./service";
import { addressPolicyFor } from "../net/address-policy";
import { chargeToolCalls } from "../http/rate-limit";
import { McpError, listMcpTools } from "./mcp-client";
import { platformClient } from "./platforms/client";
import { governorFor } from "./governor";
import type { McpConfig } from "./platforms/mcp";
import { PlatformError } from "./platforms/types";
import { mcpChallenge } from "./mcp-oauth";
import { authorizeMcpDraft } from "./oauth-flow";
import { HubError } from "../core/errors";

export interface ConnectionTestResult {
  success: boolean;
  /** `needs_authorization`: an MCP server behind OAuth; `authorize_url` completes it (and creates the connection). */
  status: "active" | "error" | "expired" | "needs_authorization";
  message: string;
  tools?: string[];
  authorize_url?: string;
  expiresAt?: Date;
}

/**
 * Tries a config before it is saved: an MCP server is connected to and its tools listed; other
 * platforms make their cheapest authenticated call. Nothing is stored. A test that reaches
 * outside costs a tool call (429 when they are used up), whichever door asked for it.
 */
export async function testConnectionConfig(
  ctx: ServiceContext,
  input: { platform: string; config: unknown },
  signal?: AbortSignal,
  /** The hub's origin as the caller uses it: where an OAuth authorization comes back to. */
  origin?: string,
): Promise<ConnectionTestResult> {
  const platform = await requirePlatformFor(ctx, input.platform);
  const settings = validateConfig(platform, input.config);
  const policy = addressPolicyFor(ctx.config);
  if (platform.authKind === "oauth2") {
    return {
      success: true,
      status: "active",
      message: `The config is valid. ${platform.name} connects with OAuth (POST /v1/connections/oauth/start), so nothing was sent; a saved connection is tested with its token.`,
    };
  }
  if (platform.id === "mcp" || platform.test) await chargeToolCalls(ctx);
  try {
    if (platform.id === "mcp") {
      const tools = await listMcpTools(settings as McpConfig, { policy, signal });
      return { success: true, status: "active", message: `Connected; the server offers ${tools.length} tool(s).`, tools: tools.map((t) => t.name) };
    }
    if (!platform.test) {
      return { success: true, status: "active", message: `The config is valid. ${platform.name} has no side-effect-free test call, so nothing was sent.` };
    }
    // Settings not saved yet have no connection: the caller's tests of a platform share one governor.
    const governor = governorFor(ctx.bindings, `test:${ctx.workspace.id}:${platform.id}`, platform, { signal, maxWaitMs: 10_000 });
    const message = await platform.test(platformClient(platform, settings, { policy, signal, governor }));
    return { success: true, status: "active", message };
  } catch (error) {
    if (error instanceof PlatformError) return { success: false, status: error.authFailure ?? "error", message: error.message };
    if (error instanceof McpError) {
      const config = settings as McpConfig;
      const given = Boolean(config.token || Object.keys(config.headers ?? {}).length);
      if (error.unauthorized && !given && origin)
        return (await mcpAuthorization(ctx, config, origin)) ?? { success: false, status: "error", message: error.message };
      return { success: false, status: "error", message: error.message };
    }
    return { success: false, status: "error", message: error instanceof Error ? error.message : String(error) };
  }
}

/** An MCP server that refused an unauthenticated request: if it challenges for OAuth, the authorization to complete. */
async function mcpAuthorization(ctx: ServiceContext, config: McpConfig, origin: string): Promise<ConnectionTestResult | undefined> {
  const challenge = await mcpChallenge(config.url, addressPolicyFor(ctx.config));
  if (!challenge) return undefined;
  try {
    const authorization = await authorizeMcpDraft(ctx, { config, challenge }, origin);
    return {
      success: false,
      status: "needs_authorization",
      message: "The server asks for OAuth authorization: open authorize_url; completing it creates the connection.",
      authorize_url: authorization.authorizeUrl,
      expiresAt: authorization.expiresAt,
    };
  } catch (error) {
    if (error instanceof HubError) return { success: false, status: "error", message: error.message };
    throw error;
  }
}
