import { openConfig } from "./config-codec";
import { getConnection, recordConnectionHealth, requirePlatformFor } from "./service";
import { type ConnectionTestResult, testConnectionConfig } from "./test-connection";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { SecretUnreadable } from "../core/secret-box";
import type { Connection } from "../db/schema";
import { chargeToolCalls } from "../http/rate-limit";
import { addressPolicyFor } from "../net/address-policy";
import { McpError, listMcpTools } from "./mcp-client";
import { isOAuthConnection, platformCallConfig, withMcpToken } from "./oauth-tokens";
import { platformClient } from "./platforms/client";
import type { McpConfig } from "./platforms/mcp";
import { platformFor } from "./platforms/oauth-spec";
import { PlatformError, type Platform } from "./platforms/types";

/**
 * "Test <name>": runs the connection test (the one POST /v1/connections/test runs) on a saved
 * connection's own config, and records the outcome as the connection's health, as tool calls do,
 * so its status and message say what the test found. Throws not_found for anyone else's id.
 */
export async function retestConnection(
  ctx: ServiceContext,
  id: number,
  signal?: AbortSignal,
): Promise<{ connection: Connection; outcome: ConnectionTestResult }> {
  const connection = await getConnection(ctx, id);
  const outcome = await testSaved(ctx, connection, signal);
  // A connection waiting for its authorization stays pending whatever a test says.
  if (connection.status !== "pending")
    await recordConnectionHealth(ctx.db, connection, { status: outcome.status === "needs_authorization" ? "error" : outcome.status, message: outcome.message });
  return { connection: await getConnection(ctx, id), outcome };
}

async function testSaved(ctx: ServiceContext, connection: Connection, signal?: AbortSignal): Promise<ConnectionTestResult> {
  try {
    const platform = await requirePlatformFor(ctx, connection.platform);
    if (isOAuthConnection(connection)) return await testAuthorized(ctx, platform, connection, signal);
    const config = await openConfig(platform, connection.config, connection.uid, await ctx.secrets());
    return await testConnectionConfig(ctx, { platform: platform.id, config }, signal);
  } catch (error) {
    // What the saved connection can no longer do is its health, not a failure of the page.
    if (error instanceof SecretUnreadable) {
      return { success: false, status: "error", message: "The stored secret can no longer be read; add the connection again." };
    }
    if (error instanceof HubError && error.code === "validation_failed") {
      const detail = error.errors?.map((e) => `${e.field}: ${e.message}`).join(" ") ?? "";
      return { success: false, status: "error", message: `${error.message} ${detail}`.trim() };
    }
    throw error;
  }
}

/**
 * The test of a connection made with OAuth, with its access token (refreshed as a call's would
 * be): the platform's test call, or an MCP server's tool list. An expired one fails at once.
 */
async function testAuthorized(ctx: ServiceContext, platform: Platform, connection: Connection, signal?: AbortSignal): Promise<ConnectionTestResult> {
  if (connection.status === "pending")
    return { success: false, status: "error", message: connection.errorMessage ?? "The connection is waiting for authorization." };
  const config = await openConfig(platformFor(platform, "oauth2"), connection.config, connection.uid, await ctx.secrets());
  const policy = addressPolicyFor(ctx.config);
  if (platform.id !== "mcp" && !platform.test)
    return { success: true, status: "active", message: `${platform.name} has no side-effect-free test call, so nothing was sent.` };
  await chargeToolCalls(ctx);
  try {
    if (platform.id === "mcp") {
      const tools = await withMcpToken(ctx, connection, config as McpConfig, (authorized) => listMcpTools(authorized, { policy, signal }));
      return { success: true, status: "active", message: `Connected; the server offers ${tools.length} tool(s).`, tools: tools.map((t) => t.name) };
    }
    const call = await platformCallConfig(ctx, platform, connection, config);
    return {
      success: true,
      status: "active",
      message: await platform.test!(platformClient(platform, call.config, { policy, signal, onUnauthorized: call.renew })),
    };
  } catch (error) {
    if (error instanceof PlatformError) return { success: false, status: error.authFailure ?? "error", message: error.message };
    if (error instanceof McpError) return { success: false, status: "error", message: error.message };
    throw error;
  }
}
