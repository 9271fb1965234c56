import type { Env } from "../env";
import type { Config } from "../core/config";
import type { Db } from "../db/client";
import { openConfig } from "../connections/config-codec";
import { findPlatform } from "../connections/platforms";
import type { McpConfig } from "../connections/platforms/mcp";
import { secretBoxFor } from "../connections/secrets";
import { buildCatalog } from "./catalog";
import { addressPolicyFor } from "../net/address-policy";
import { mcpToolsOf } from "./mcp/tools-cache";
import type { ToolInfo } from "./types";

/** A user's tool catalog, loading MCP tool lists as needed (shared by the API and the orchestrator). */
export async function catalogFor(
  env: Env,
  config: Config,
  db: Db,
  userId: number,
  options: { includeAll?: boolean; all?: boolean; refresh?: boolean } = {},
): Promise<ToolInfo[]> {
  const policy = addressPolicyFor(config);
  const box = await secretBoxFor(env);
  return buildCatalog(db, userId, {
    includeAll: options.includeAll ?? false,
    all: options.all ?? false,
    refresh: options.refresh,
    loadMcpTools: async (connection) => {
      try {
        const settings = (await openConfig(findPlatform("mcp")!, connection.config, connection.uid, box)) as McpConfig;
        return await mcpToolsOf(db, connection, settings, { policy, refresh: options.refresh, signal: AbortSignal.timeout(15_000) });
      } catch {
        return undefined;
      }
    },
  });
}
