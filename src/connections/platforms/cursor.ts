import { z } from "@hono/zod-openapi";
import { PlatformError } from "./types";

// For APIs that page by offset (Mailchimp's offset/count): the tool still hands out an opaque
// `next_cursor`, like every other list tool, so callers never do the arithmetic themselves.

const PREFIX = "o1.";
/** Far past any real list; keeps the number an exact integer. */
const MAX_OFFSET = 10_000_000;

export const OffsetCursor = z
  .string()
  .regex(/^o1\.[0-9a-z]{1,8}$/, "Pass the next_cursor of the previous page as it was given.")
  .describe("The previous page's next_cursor.");

export const offsetCursor = (offset: number): string => `${PREFIX}${offset.toString(36)}`;

/** The offset a cursor stands for (0 without one). */
export function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const offset = Number.parseInt(cursor.slice(PREFIX.length), 36);
  if (!cursor.startsWith(PREFIX) || !Number.isSafeInteger(offset) || offset < 0 || offset > MAX_OFFSET)
    throw new PlatformError("This cursor was not given by this tool; pass next_cursor as it was given.", 400);
  return offset;
}

/**
 * The cursor after a page of `returned` items (of `requested`) from `offset`, or null when that
 * was the last page: a short page, or `total` (when the API says it) reached.
 */
export function nextOffsetCursor(offset: number, returned: number, requested: number, total: number | undefined): string | null {
  const next = offset + returned;
  if (returned < requested || (total !== undefined && next >= total) || next > MAX_OFFSET) return null;
  return offsetCursor(next);
}
