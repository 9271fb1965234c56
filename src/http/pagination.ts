import { z } from "@hono/zod-openapi";
import { base64url, fromBase64url } from "../lib/base64url";
import { HubError } from "../core/errors";

/** `?limit=` (default 20, at most 100) and an opaque `?cursor=` from the previous page. */
export const PageQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .openapi({ param: { name: "limit", in: "query" } }),
  cursor: z
    .string()
    .max(200)
    .optional()
    .openapi({ param: { name: "cursor", in: "query" }, description: "next_cursor of the previous page." }),
});

export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), next_cursor: z.string().nullable().openapi({ description: "Pass as ?cursor= for the next page; null at the end." }) });

/** Cursors are opaque to clients; inside they hold the position to continue after. */
export function encodeCursor(position: Record<string, string | number>): string {
  return base64url(new TextEncoder().encode(JSON.stringify(position)));
}

export function decodeCursor<T extends Record<string, string | number>>(cursor: string | undefined, shape: z.ZodType<T>): T | undefined {
  if (!cursor) return undefined;
  try {
    return shape.parse(JSON.parse(new TextDecoder().decode(fromBase64url(cursor))));
  } catch {
    throw new HubError("validation_failed", "The cursor is not valid.", {
      errors: [{ location: "query", field: "cursor", message: "Use next_cursor from a previous page." }],
    });
  }
}

/** Given `limit + 1` rows, the page and the cursor for the next one. */
export function paginate<R>(rows: R[], limit: number, positionOf: (row: R) => Record<string, string | number>) {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { page, nextCursor: rows.length > limit && last ? encodeCursor(positionOf(last)) : null };
}

export const IdCursor = z.object({ id: z.number().int() });

/**
 * One page of a newest-first list keyed by integer id: `fetchRows(n, beforeId)` returns up to n
 * rows older than beforeId; the answer is `{data, next_cursor}`.
 */
export async function pageById<R extends { id: number }, O>(
  query: { limit: number; cursor?: string },
  fetchRows: (count: number, beforeId: number | undefined) => Promise<R[]>,
  present: (row: R) => O | Promise<O>,
): Promise<{ data: O[]; next_cursor: string | null }> {
  const after = decodeCursor(query.cursor, IdCursor);
  const rows = await fetchRows(query.limit + 1, after?.id);
  const { page, nextCursor } = paginate(rows, query.limit, (row) => ({ id: row.id }));
  return { data: await Promise.all(page.map(present)), next_cursor: nextCursor };
}
