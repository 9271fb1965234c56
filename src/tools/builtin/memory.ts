import { z } from "@hono/zod-openapi";
import { and, asc, eq, gt, isNull, like, or, sql } from "drizzle-orm";
import { insertSelectList } from "../../db/insert-select";
import { memoryEntries } from "../../db/schema";
import { ToolError, defineBuiltin, type ToolContext } from "../types";
import { shallowJson } from "./bounded-json";

const MAX_KEYS_PER_USER = 1000;
const MAX_VALUE_BYTES = 64 * 1024;
const Key = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\w.:\-/@+]+$/, "Letters, digits and _ . : - / @ + only.");

const live = (now: Date) => or(isNull(memoryEntries.expiresAt), gt(memoryEntries.expiresAt, now));

export const memoryTool = defineBuiltin({
  name: "memory_store",
  // Sets and deletes keys of the caller's own small memory (its `delete` removes one key): a write.
  effect: "write",
  title: "Per-user memory",
  description:
    'A small key-value memory that persists across runs, per user: `set` (with optional ttl_seconds), `get`, `delete`, `list` (by prefix). Useful for de-duplication ("already emailed this lead?") and counters. Up to 1,000 keys of 64 KiB each.',
  input: z.object({
    operation: z.enum(["set", "get", "delete", "list"]),
    key: Key.optional(),
    value: shallowJson().optional(),
    ttl_seconds: z.number().int().min(1).max(31_536_000).optional(),
    prefix: z.string().max(200).optional(),
  }),
  async run(ctx, args) {
    const now = new Date();
    const needKey = () => {
      if (!args.key) throw new ToolError(`${args.operation} needs a key.`);
      return args.key;
    };
    switch (args.operation) {
      case "get": {
        const row = await ctx.db
          .select()
          .from(memoryEntries)
          .where(and(eq(memoryEntries.userId, ctx.workspace.id), eq(memoryEntries.key, needKey()), live(now)))
          .get();
        return { key: args.key, found: Boolean(row), value: row?.value ?? null };
      }
      case "set":
        return set(ctx, needKey(), args.value ?? null, args.ttl_seconds, now);
      case "delete": {
        const deleted = await ctx.db
          .delete(memoryEntries)
          .where(and(eq(memoryEntries.userId, ctx.workspace.id), eq(memoryEntries.key, needKey())))
          .returning({ key: memoryEntries.key });
        return { key: args.key, deleted: deleted.length > 0 };
      }
      case "list": {
        const escaped = (args.prefix ?? "").replace(/[\\%_]/g, (c) => `\\${c}`);
        const rows = await ctx.db
          .select({ key: memoryEntries.key, value: memoryEntries.value, expiresAt: memoryEntries.expiresAt })
          .from(memoryEntries)
          .where(and(eq(memoryEntries.userId, ctx.workspace.id), live(now), like(memoryEntries.key, sql`${`${escaped}%`} ESCAPE '\\'`)))
          .orderBy(asc(memoryEntries.key))
          .limit(100);
        return { entries: rows.map((r) => ({ key: r.key, value: r.value, expires_at: r.expiresAt?.toISOString() ?? null })) };
      }
    }
  },
});

async function set(ctx: ToolContext, key: string, value: unknown, ttlSeconds: number | undefined, now: Date) {
  if (new TextEncoder().encode(JSON.stringify(value)).byteLength > MAX_VALUE_BYTES) throw new ToolError("The value is larger than 64 KiB.");
  const expiresAt = ttlSeconds ? new Date(now.getTime() + ttlSeconds * 1000) : null;
  const mine = eq(memoryEntries.userId, ctx.workspace.id);
  // One statement checks and writes, so concurrent sets cannot all pass a count made before them:
  // a new key is written only while fewer than MAX_KEYS_PER_USER live keys are held; a key already
  // held (live or expired) is always replaced.
  const room = sql`(select count(*) from ${memoryEntries} where ${and(mine, live(now))}) < ${MAX_KEYS_PER_USER}
    or exists (select 1 from ${memoryEntries} where ${and(mine, eq(memoryEntries.key, key))})`;
  const written = await ctx.db
    .insert(memoryEntries)
    .select(sql`select ${insertSelectList(memoryEntries, { userId: ctx.workspace.id, key, value, expiresAt, updatedAt: now })} where ${room}`)
    .onConflictDoUpdate({ target: [memoryEntries.userId, memoryEntries.key], set: { value, expiresAt, updatedAt: now } })
    .returning({ key: memoryEntries.key });
  if (written.length === 0) throw new ToolError("Memory is full (1,000 keys); delete some first.");
  return { key, stored: true, expires_at: expiresAt?.toISOString() ?? null };
}
