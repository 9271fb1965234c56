// A person's tool catalog, one page at a time (GET /v1/tools, the MCP server's tools/list) or whole
// (a conversation turn ranks all of it). The catalog is a sequence of sources in a fixed order:
// the built-ins, each declared platform, each custom platform (newest first), each MCP connection
// (oldest first). A page reads only the sources it lists: a custom platform's declarations
// (compiled once per isolate, connections/custom/compiled.ts) or an MCP connection's cached list
// are loaded when the page reaches them, and the page ends at `limit` tools or once the sources it
// read weigh `maxBytes` as stored, whichever comes first. So the work of one page is bounded
// whatever the person has stored; its cursor says where the next page starts.

import { z } from "@hono/zod-openapi";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { ServiceContext } from "../core/context";
import { type CustomPlatformHead, compiledPlatforms, customPlatformHeads } from "../connections/custom/resolve";
import { PLATFORMS } from "../connections/platforms";
import type { Platform } from "../connections/platforms/types";
import { type ConnectionSummary, allConnections, mcpConnectionsById } from "../connections/service";
import { decodeCursor, encodeCursor } from "../http/pagination";
import { BUILTIN_TOOLS } from "./builtin";
import { type CatalogOptions, MAX_MCP_REFRESHES_PER_BUILD, builtinInfo, mcpInfo, mcpListDue, platformInfo, unavailableReason } from "./catalog";
import type { ToolInfo } from "./types";

/** Page sizes of GET /v1/tools and tools/list: the default holds a usual catalog whole (150 built-in and declared tools, plus a few custom platforms and MCP servers). */
export const CATALOG_PAGE_DEFAULT = 500;
export const CATALOG_PAGE_MAX = 1000;
/** Stored bytes of custom declarations and MCP tool lists one page reads (and, roughly, answers) at most, past the source that crosses it. */
export const CATALOG_PAGE_MAX_BYTES = 8 * 1024 * 1024;
/** MCP connections whose rows (cached lists included, up to 1.5 MiB each) one read brings: few for a page, more for a whole build, which reads them all anyway. */
const MCP_BATCH = 4;
const MCP_WHOLE_BATCH = 50;

/** Where a page starts: source kind (0 built-ins, 1 declared, 2 custom, 3 MCP), its key, and the tool within it. */
const Position = z.object({ s: z.number().int().min(0).max(3), k: z.number().int(), i: z.number().int().min(0) });
type Position = z.infer<typeof Position>;

/** One source's tools and the bytes they were read from. */
interface Listed {
  tools: ToolInfo[];
  bytes: number;
}

interface Source {
  s: number;
  k: number;
  list: () => Promise<Listed>;
  /** Listing it reads nothing (built-ins, declared platforms): a full page may look whether it is empty. */
  free?: boolean;
}

/** What is left of the page being built: tools, and bytes to read. */
interface Room {
  tools: () => number;
  bytes: () => number;
}

export interface CatalogPage {
  tools: ToolInfo[];
  nextCursor: string | null;
}

/**
 * One page of the catalog from `cursor` (the previous page's nextCursor): at most `limit` tools,
 * and fewer when the sources read reach `maxBytes`. Infinity for both builds it whole.
 */
export async function catalogPage(
  ctx: ServiceContext,
  options: CatalogOptions,
  page: { limit: number; cursor?: string; maxBytes: number },
): Promise<CatalogPage> {
  const start = decodeCursor(page.cursor, Position) ?? { s: 0, k: 0, i: 0 };
  const tools: ToolInfo[] = [];
  let bytes = 0;
  const room: Room = { tools: () => page.limit - tools.length, bytes: () => page.maxBytes - bytes };
  for await (const source of sourcesFrom(ctx, options, start, room)) {
    const from = source.s === start.s && source.k === start.k ? start.i : 0;
    const full = tools.length >= page.limit || (tools.length > 0 && bytes >= page.maxBytes);
    if (full && !source.free) return { tools, nextCursor: encodeCursor({ s: source.s, k: source.k, i: from }) };
    const listed = await source.list();
    if (full && listed.tools.length > from) return { tools, nextCursor: encodeCursor({ s: source.s, k: source.k, i: from }) };
    bytes += listed.bytes;
    const end = Math.min(listed.tools.length, from + (page.limit - tools.length));
    for (let i = from; i < end; i++) tools.push(listed.tools[i]!);
    if (end < listed.tools.length) return { tools, nextCursor: encodeCursor({ s: source.s, k: source.k, i: end }) };
  }
  return { tools, nextCursor: null };
}

/** The whole catalog (for the callers that rank or search all of it). */
export async function wholeCatalog(ctx: ServiceContext, options: CatalogOptions): Promise<ToolInfo[]> {
  return (await catalogPage(ctx, options, { limit: Number.POSITIVE_INFINITY, maxBytes: Number.POSITIVE_INFINITY })).tools;
}

let builtins: ToolInfo[] | undefined;

/** The catalog's sources at or after `start`, in order; each reads its tools only when listed. */
async function* sourcesFrom(ctx: ServiceContext, options: CatalogOptions, start: Position, room: Room): AsyncGenerator<Source> {
  if (start.s <= 0) {
    builtins ??= BUILTIN_TOOLS.map(builtinInfo);
    yield { s: 0, k: 0, list: async () => ({ tools: builtins!, bytes: 0 }), free: true };
  }
  const owned = await allConnections(ctx);
  const byPlatform = new Map<string, ConnectionSummary[]>();
  for (const connection of owned) {
    const mine = byPlatform.get(connection.platform);
    if (mine) mine.push(connection);
    else byPlatform.set(connection.platform, [connection]);
  }
  const toolsOf = (platform: Platform) => platformTools(platform, byPlatform.get(platform.id) ?? [], options);

  for (const [index, platform] of PLATFORMS.entries()) {
    if (start.s > 1 || (start.s === 1 && index < start.k) || platform.id === "mcp" || platform.tools.length === 0) continue;
    yield { s: 1, k: index, list: async () => ({ tools: toolsOf(platform), bytes: 0 }), free: true };
  }

  // The person's custom platforms (DESIGN §5) come after the declared ones, like them; read in
  // batches that fit what is left of the page, so a page does not read platforms it will not list.
  if (start.s <= 2) {
    const heads = (await customPlatformHeads(ctx)).filter((head) => start.s < 2 || head.id <= start.k);
    const loaded = new Map<string, Platform>();
    for (const [n, head] of heads.entries()) {
      const list = async () => {
        if (!loaded.has(head.uid)) for (const platform of await compiledPlatforms(ctx, batchFrom(heads, n, room))) loaded.set(platform.id, platform);
        const platform = loaded.get(head.uid);
        return { tools: platform ? toolsOf(platform) : [], bytes: head.toolsBytes };
      };
      yield { s: 2, k: head.id, list };
    }
  }

  yield* mcpSources(ctx, options, owned, start, Number.isFinite(room.bytes()) ? MCP_BATCH : MCP_WHOLE_BATCH);
}

/**
 * The heads from `n` on that fit what is left of the page (always at least one): their stored
 * bytes within its bytes, their tool counts (a hint: rows written by hand may say 0) within its tools.
 */
function batchFrom(heads: CustomPlatformHead[], n: number, room: Room): CustomPlatformHead[] {
  const [roomTools, roomBytes] = [room.tools(), room.bytes()];
  let [tools, bytes, end] = [0, 0, n];
  while (end < heads.length && (end === n || (tools + heads[end]!.toolCount < roomTools && bytes + heads[end]!.toolsBytes <= roomBytes))) {
    tools += heads[end]!.toolCount;
    bytes += heads[end++]!.toolsBytes;
  }
  return heads.slice(n, end);
}

/** A declared or custom platform's tools as the caller may see them, given their connections to it. */
function platformTools(platform: Platform, mine: ConnectionSummary[], options: CatalogOptions): ToolInfo[] {
  const active = mine.find((c) => c.status === "active");
  if (active) return platform.tools.map((tool) => platformInfo(platform, tool, active, true));
  if (mine.length && options.includeAll) return platform.tools.map((tool) => platformInfo(platform, tool, mine[0], false, unavailableReason(mine[0]!)));
  if (!mine.length && options.all)
    return platform.tools.map((tool) => platformInfo(platform, tool, undefined, false, `Connect ${platform.name} first (platform "${platform.id}").`));
  return [];
}

/**
 * The MCP connections' sources. Their rows (with the cached lists) are read a few at a time, and
 * lists due for a refresh are asked for, in parallel within a read, at most
 * MAX_MCP_REFRESHES_PER_BUILD per build or page (the longest unasked first within each read).
 */
async function* mcpSources(
  ctx: ServiceContext,
  options: CatalogOptions,
  owned: ConnectionSummary[],
  start: Position,
  batchSize: number,
): AsyncGenerator<Source> {
  const wanted = owned
    .filter((c) => c.platform === "mcp" && (c.status === "active" || options.includeAll || options.refresh))
    .filter((c) => start.s < 3 || c.id >= start.k)
    .sort((a, b) => a.id - b.id);
  let refreshesLeft = MAX_MCP_REFRESHES_PER_BUILD;
  for (let first = 0; first < wanted.length; first += batchSize) {
    const batch = wanted.slice(first, first + batchSize);
    let read: Promise<Map<number, Listed>> | undefined;
    const readBatch = async () => {
      const rows = await mcpConnectionsById(
        ctx,
        batch.map((c) => c.id),
      );
      const asked = new Set(
        rows
          .filter(({ row }) => options.refresh || mcpListDue(row))
          .sort((a, b) => (a.row.toolsCachedAt?.getTime() ?? 0) - (b.row.toolsCachedAt?.getTime() ?? 0))
          .slice(0, refreshesLeft)
          .map(({ row }) => row.id),
      );
      refreshesLeft -= asked.size;
      const listed = await Promise.all(
        rows.map(async ({ row, listBytes }) => {
          const tools = asked.has(row.id) ? await options.loadMcpTools(row) : ((row.toolsCache as McpTool[] | null) ?? undefined);
          // A successful load marks the connection active again (see mcpToolsOf).
          const usable = row.status === "active" || (Boolean(options.refresh) && asked.has(row.id));
          const shown =
            !tools || (!usable && !options.includeAll) ? [] : tools.map((tool) => mcpInfo(row, tool, usable, usable ? undefined : unavailableReason(row)));
          return [row.id, { tools: shown, bytes: listBytes }] as const;
        }),
      );
      return new Map<number, Listed>(listed);
    };
    for (const connection of batch) {
      const list = async () => {
        read ??= readBatch();
        return (await read).get(connection.id) ?? { tools: [], bytes: 0 };
      };
      yield { s: 3, k: connection.id, list };
    }
  }
}
