import type { ServiceContext } from "../core/context";
import { openConfig } from "../connections/config-codec";
import { findPlatform } from "../connections/platforms";
import type { McpConfig } from "../connections/platforms/mcp";
import { buildCatalog } from "./catalog";
import { addressPolicyFor } from "../net/address-policy";
import { chargeToolCalls } from "../http/rate-limit";
import { mcpToolsOf } from "./mcp/tools-cache";
import type { ToolInfo } from "./types";

/** A user's tool catalog, loading MCP tool lists as needed (shared by the API and the orchestrator). */
export async function catalogFor(ctx: ServiceContext, options: { includeAll?: boolean; all?: boolean; refresh?: boolean } = {}): Promise<ToolInfo[]> {
  const policy = addressPolicyFor(ctx.config);
  const box = await ctx.secrets();
  return buildCatalog(ctx, {
    includeAll: options.includeAll ?? false,
    all: options.all ?? false,
    refresh: options.refresh,
    loadMcpTools: async (connection) => {
      try {
        const settings = (await openConfig(findPlatform("mcp")!, connection.config, connection.uid, box)) as McpConfig;
        return await mcpToolsOf(ctx, connection, settings, { policy, refresh: options.refresh, signal: AbortSignal.timeout(15_000) });
      } catch {
        return undefined;
      }
    },
  });
}

/**
 * The caller's catalog for the API. Reloading (`refresh`) asks every MCP server of the user again,
 * so it costs what a tool call costs; the limits it spent are returned for the response.
 */
export async function listTools(ctx: ServiceContext, options: { includeAll?: boolean; all?: boolean; refresh?: boolean }) {
  const limits = options.refresh ? await chargeToolCalls(ctx) : [];
  return { tools: await catalogFor(ctx, options), limits };
}
