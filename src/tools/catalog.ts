import { z } from "@hono/zod-openapi";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { Connection } from "../db/schema";
import type { ConnectionSummary } from "../connections/service";
import { PLATFORMS, findPlatform, platformToolName } from "../connections/platforms";
import type { Platform, PlatformTool } from "../connections/platforms/types";
import { splitCustomToolName } from "../connections/custom/declarations";
import { effectOfMcpAnnotations } from "../core/tool-effects";
import { BUILTIN_TOOLS } from "./builtin";
import { inputJsonSchema, toolNameFragment } from "../lib/json-schema";
import type { BuiltinTool, JsonSchema, ToolInfo } from "./types";

/** MCP tool lists are asked for again after this long, whatever the last answer, or on demand (`?refresh=true`). */
export const MCP_CACHE_TTL_MS = 10 * 60 * 1000;

/**
 * Most MCP servers one catalog build (or page) asks for their tools: the catalog is built on many
 * requests (the tool list, every conversation turn, the MCP server's tools/list), and a user may
 * have 200 connections. The others are served from their cached lists and asked on later builds.
 */
export const MAX_MCP_REFRESHES_PER_BUILD = 10;

/** Whether an MCP connection's tool list is due to be asked for: never asked, or last asked (successfully or not) a TTL ago. */
export function mcpListDue(connection: Pick<Connection, "toolsCachedAt">, now = Date.now()): boolean {
  return !connection.toolsCachedAt || now - connection.toolsCachedAt.getTime() >= MCP_CACHE_TTL_MS;
}

const ConnectionChoice = z.object({
  connection_id: z.number().int().positive().optional().describe("Which of your connections to use; defaults to the most recently created active one."),
});

/** A platform tool's input: its own fields plus the optional connection choice. */
export function platformToolInput(tool: PlatformTool): z.ZodType {
  const cached = platformInputs.get(tool);
  if (cached) return cached;
  const input = tool.input instanceof z.ZodObject ? tool.input.extend(ConnectionChoice.shape) : tool.input;
  platformInputs.set(tool, input);
  return input;
}
const platformInputs = new WeakMap<PlatformTool, z.ZodType>();

/**
 * `mcp_<connection id>_<tool>`. A tool name that had to be changed to fit (characters outside
 * [A-Za-z0-9_-], or too long) gets a short hash of the original, so two tools never collide.
 */
export function mcpToolName(connectionId: number, toolName: string): string {
  const prefix = `mcp_${connectionId}_`;
  const room = 64 - prefix.length;
  if (/^[A-Za-z0-9_-]+$/.test(toolName) && toolName.length <= room) return prefix + toolName;
  return `${prefix}${toolNameFragment(toolName, room - 7)}_${fnv1a(toolName)}`;
}

/** A short, stable hash (FNV-1a, 24 bits as hex). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return ((hash >>> 0) & 0xffffff).toString(16).padStart(6, "0");
}

export function builtinInfo(tool: BuiltinTool): ToolInfo {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    source: "builtin",
    platform: null,
    connection_id: null,
    input_schema: inputJsonSchema(tool.input),
    effect: tool.effect,
    available: true,
  };
}

export function platformInfo(platform: Platform, tool: PlatformTool, connection: ConnectionSummary | undefined, available: boolean, reason?: string): ToolInfo {
  return {
    name: platformToolName(platform, tool.action),
    title: tool.title,
    description: tool.description,
    source: "platform",
    platform: platform.id,
    connection_id: connection?.id ?? null,
    input_schema: inputJsonSchema(platformToolInput(tool)),
    // Declared by the tool; a custom platform's tools have it from their operation's method.
    effect: tool.effect,
    available,
    ...(reason ? { unavailable_reason: reason } : {}),
  };
}

export function mcpInfo(connection: Pick<Connection, "id">, tool: McpTool, available: boolean, reason?: string): ToolInfo {
  return {
    name: mcpToolName(connection.id, tool.name),
    title: tool.title ?? tool.annotations?.title ?? tool.name,
    description: tool.description ?? "",
    source: "mcp",
    platform: "mcp",
    connection_id: connection.id,
    input_schema: (tool.inputSchema ?? { type: "object" }) as JsonSchema,
    effect: effectOfMcpAnnotations(tool.annotations),
    available,
    ...(reason ? { unavailable_reason: reason } : {}),
  };
}

export const unavailableReason = (connection: ConnectionSummary) =>
  connection.status === "expired"
    ? `Connection ${connection.id} (${connection.name}) has an expired token; ${connection.authMode === "oauth2" ? `reconnect it (POST /v1/connections/${connection.id}/reconnect)` : "update it"}.`
    : connection.status === "pending"
      ? `Connection ${connection.id} (${connection.name}) is waiting for authorization.`
      : `Connection ${connection.id} (${connection.name}) failed: ${connection.errorMessage ?? "authentication error"}.`;

export interface CatalogOptions {
  /** Also tools of the caller's connections that need attention (status error or expired). */
  includeAll: boolean;
  /** Also tools of platforms the caller has not connected. */
  all: boolean;
  /** Reload MCP tool lists (the longest unasked first, MAX_MCP_REFRESHES_PER_BUILD of them), retrying connections marked as failing. */
  refresh?: boolean;
  /** Loads (or reloads) an MCP connection's tool list; failures leave the connection flagged. */
  loadMcpTools: (connection: Connection) => Promise<McpTool[] | undefined>;
}

/** What a tool name refers to, before any connection is loaded. */
export type ToolReference =
  | { kind: "builtin"; tool: BuiltinTool }
  | { kind: "platform"; platform: Platform; tool: PlatformTool }
  | { kind: "mcp"; connectionId: number; fragment: string }
  /** A tool of a custom platform: which one, and whether it is the person's, is known only once their platforms are loaded. */
  | { kind: "custom"; platformId: string; action: string };

const builtinsByName = new Map(BUILTIN_TOOLS.map((tool) => [tool.name, tool]));

export function parseToolName(name: string): ToolReference | undefined {
  const builtin = builtinsByName.get(name);
  if (builtin) return { kind: "builtin", tool: builtin };
  const mcp = name.match(/^mcp_(\d+)_(.+)$/);
  if (mcp) return { kind: "mcp", connectionId: Number(mcp[1]), fragment: mcp[2]! };
  for (const platform of PLATFORMS) {
    if (!name.startsWith(`${platform.id}_`)) continue;
    const tool = platform.tools.find((t) => platformToolName(platform, t.action) === name);
    if (tool) return { kind: "platform", platform, tool };
  }
  const custom = splitCustomToolName(name);
  if (custom) return { kind: "custom", ...custom };
  return undefined;
}

export { findPlatform };
