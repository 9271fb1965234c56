// The platforms a person can connect to (GET /v1/connections/platforms), a page at a time: the
// declared platforms, then their custom platforms newest first. A custom platform's tools come
// from its declarations (up to 1.9 MB each), so a page also ends once the custom platforms it
// holds weigh CATALOG_PAGE_MAX_BYTES as stored: 20 of the largest would otherwise be one 40 MB answer.

import { z } from "@hono/zod-openapi";
import type { ServiceContext } from "../core/context";
import { decodeCursor, encodeCursor } from "../http/pagination";
import { compiledPlatforms, customPlatformHeads } from "./custom/resolve";
import { PLATFORMS } from "./platforms";
import type { Platform } from "./platforms/types";

/** Stored bytes of custom declarations one page lists, past the platform that crosses it. */
export const PLATFORM_PAGE_MAX_BYTES = 8 * 1024 * 1024;

/** Where a page starts: a declared platform's index (s 0), or a custom platform's row id, newest first (s 1). */
const Position = z.object({ s: z.number().int().min(0).max(1), k: z.number().int() });

export async function platformPage(
  ctx: ServiceContext,
  page: { limit: number; cursor?: string },
): Promise<{ platforms: Platform[]; nextCursor: string | null }> {
  const start = decodeCursor(page.cursor, Position) ?? { s: 0, k: 0 };
  const platforms: Platform[] = start.s === 0 ? PLATFORMS.slice(start.k, start.k + page.limit) : [];
  if (start.s === 0 && start.k + page.limit < PLATFORMS.length) return { platforms, nextCursor: encodeCursor({ s: 0, k: start.k + page.limit }) };
  const heads = (await customPlatformHeads(ctx)).filter((head) => start.s === 0 || head.id <= start.k);
  let bytes = 0;
  let end = 0;
  while (end < heads.length && platforms.length + end < page.limit && (end === 0 || bytes < PLATFORM_PAGE_MAX_BYTES)) bytes += heads[end++]!.toolsBytes;
  platforms.push(...(await compiledPlatforms(ctx, heads.slice(0, end))));
  return { platforms, nextCursor: end < heads.length ? encodeCursor({ s: 1, k: heads[end]!.id }) : null };
}
