import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Db } from "../../db/client";
import type { Connection } from "../../db/schema";
import type { McpConfig } from "../../connections/platforms/mcp";
import { cacheMcpTools, noteMcpToolsAsked, recordConnectionHealth } from "../../connections/service";
import type { AddressPolicy } from "../../net/address-policy";
import { mcpListDue } from "../catalog";
import { McpError, listMcpTools } from "../../connections/mcp-client";

/**
 * The tools of an MCP connection: from the D1 cache while fresh, else loaded from the server and
 * cached. A server that refuses our credentials flags the connection; one that cannot be reached
 * keeps serving the last list it gave. A failed load is recorded like a successful one, so a
 * failing server is asked again after the TTL, not on every catalog build.
 */
export async function mcpToolsOf(
  db: Db,
  connection: Connection,
  config: McpConfig,
  options: { policy: AddressPolicy; refresh?: boolean; signal?: AbortSignal },
): Promise<Tool[] | undefined> {
  const cached = connection.toolsCache as Tool[] | null;
  if (!options.refresh && !mcpListDue(connection)) return cached ?? undefined;
  try {
    const tools = await listMcpTools(config, { policy: options.policy, signal: options.signal });
    await cacheMcpTools(db, connection, tools);
    if (connection.status !== "active") await recordConnectionHealth(db, connection, { status: "active" });
    return tools;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const refused = error instanceof McpError && error.unauthorized;
    // Refused credentials always flag the connection; an unreachable server only when there is
    // no earlier list to fall back on.
    if (refused || !cached) await recordConnectionHealth(db, connection, { status: "error", message });
    await noteMcpToolsAsked(db, connection);
    return refused ? undefined : (cached ?? undefined);
  }
}
