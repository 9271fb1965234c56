import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Runtime } from "../../core/context";
import type { Connection } from "../../db/schema";
import type { McpConfig } from "../../connections/platforms/mcp";
import { PlatformError } from "../../connections/platforms/types";
import { withMcpToken } from "../../connections/oauth-tokens";
import { cacheMcpTools, noteMcpToolsAsked, recordConnectionHealth } from "../../connections/service";
import type { AddressPolicy } from "../../net/address-policy";
import { mcpListDue } from "../catalog";
import { McpError, listMcpTools } from "../../connections/mcp-client";

/**
 * The tools of an MCP connection: from the D1 cache while fresh, else loaded from the server and
 * cached. A server that refuses our credentials flags the connection; one that cannot be reached
 * keeps serving the last list it gave. A failed load is recorded like a successful one, so a
 * failing server is asked again after the TTL, not on every catalog build. A server behind OAuth
 * is asked with the connection's access token (refreshed as a call's would be).
 */
export async function mcpToolsOf(
  runtime: Pick<Runtime, "db" | "secrets" | "bindings">,
  connection: Connection,
  config: McpConfig,
  options: { policy: AddressPolicy; refresh?: boolean; signal?: AbortSignal },
): Promise<Tool[] | undefined> {
  const { db } = runtime;
  const cached = connection.toolsCache as Tool[] | null;
  if (!options.refresh && !mcpListDue(connection)) return cached ?? undefined;
  try {
    const tools = await withMcpToken(runtime, connection, config, (authorized) => listMcpTools(authorized, { policy: options.policy, signal: options.signal }));
    await cacheMcpTools(db, connection, tools);
    if (connection.status !== "active") await recordConnectionHealth(db, connection, { status: "active" });
    return tools;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof PlatformError) {
      // No usable token: expired (the connection says so already), waiting for its authorization,
      // or the refresh could not be made right now (the last list serves meanwhile).
      await noteMcpToolsAsked(db, connection);
      return error.retryable ? (cached ?? undefined) : undefined;
    }
    const refused = error instanceof McpError && error.unauthorized;
    // Refused credentials always flag the connection; an unreachable server only when there is
    // no earlier list to fall back on.
    if (refused || !cached) await recordConnectionHealth(db, connection, { status: "error", message });
    await noteMcpToolsAsked(db, connection);
    return refused ? undefined : (cached ?? undefined);
  }
}
