import type { ServiceContext } from "../core/context";
import { openConfig } from "../connections/config-codec";
import { findPlatform } from "../connections/platforms";
import type { McpConfig } from "../connections/platforms/mcp";
import { defaultConnection, getConnection } from "../connections/service";
import { type CatalogOptions, builtinInfo, mcpInfo, mcpToolName, parseToolName, platformInfo } from "./catalog";
import { customToolOrAsIs } from "./custom-tools";
import { type CatalogPage, CATALOG_PAGE_MAX_BYTES, catalogPage, wholeCatalog } from "./catalog-build";
import { addressPolicyFor } from "../net/address-policy";
import { chargeToolCalls } from "../http/rate-limit";
import { mcpToolsOf } from "./mcp/tools-cache";
import type { ToolInfo } from "./types";

type CatalogChoice = { includeAll?: boolean; all?: boolean; refresh?: boolean };

/** How the catalog is built for this caller: which tools to show, and how MCP lists are loaded. */
async function optionsFor(ctx: ServiceContext, options: CatalogChoice): Promise<CatalogOptions> {
  const policy = addressPolicyFor(ctx.config);
  const box = await ctx.secrets();
  return {
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
  };
}

/**
 * A user's whole tool catalog, loading MCP tool lists as needed, for the callers that rank or
 * search all of it (conversation turns, the workflow builder, agent_config checks). Bounded by the
 * quotas (connections, custom platforms) and the per-list caps, not by a page.
 */
export async function catalogFor(ctx: ServiceContext, options: CatalogChoice = {}): Promise<ToolInfo[]> {
  return wholeCatalog(ctx, await optionsFor(ctx, options));
}

/** One page of the catalog (GET /v1/tools, the MCP server's tools/list): at most `limit` tools, and the work of reading them bounded. */
export async function catalogPageFor(ctx: ServiceContext, options: CatalogChoice, page: { limit: number; cursor?: string }): Promise<CatalogPage> {
  return catalogPage(ctx, await optionsFor(ctx, options), { ...page, maxBytes: CATALOG_PAGE_MAX_BYTES });
}

/**
 * A page of the caller's catalog for the API. Reloading (`refresh`) asks the MCP servers of the
 * page again, so it costs what a tool call costs; the limits it spent are returned for the response.
 */
export async function listTools(ctx: ServiceContext, options: CatalogChoice & { limit: number; cursor?: string }) {
  const limits = options.refresh ? await chargeToolCalls(ctx) : [];
  const page = await catalogPageFor(ctx, options, { limit: options.limit, cursor: options.cursor });
  return { tools: page.tools, nextCursor: page.nextCursor, limits };
}

/**
 * One tool the caller can run now, by name, as the catalog's default page shows it (the
 * dashboard's tool page): reads only what that tool needs, its platform and connection or its MCP
 * connection's list, not the whole catalog.
 */
export async function availableTool(ctx: ServiceContext, name: string): Promise<ToolInfo | undefined> {
  const reference = await customToolOrAsIs(ctx, parseToolName(name));
  if (!reference) return undefined;
  if (reference.kind === "builtin") return builtinInfo(reference.tool);
  if (reference.kind === "platform") {
    const active = await defaultConnection(ctx, reference.platform.id, { activeOnly: true });
    return active ? platformInfo(reference.platform, reference.tool, active, true) : undefined;
  }
  const connection = await getConnection(ctx, reference.connectionId).catch(() => undefined);
  if (connection?.platform !== "mcp" || connection.status !== "active") return undefined;
  const listed = await (await optionsFor(ctx, {})).loadMcpTools(connection);
  const tool = listed?.find((t) => mcpToolName(connection.id, t.name) === name);
  return tool ? mcpInfo(connection, tool, true) : undefined;
}
