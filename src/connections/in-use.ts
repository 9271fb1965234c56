import { and, eq } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { notFound } from "../core/errors";
import { IsolateCache } from "../core/isolate-cache";
import { connections, type Connection } from "../db/schema";

/**
 * Connections as tool calls use them, kept per isolate like credentials (IsolateCache: fresh 5 s,
 * stale-while-revalidate to 10 s), so a call skips the D1 read of its connection. What this
 * isolate's service writes (an update, a delete, a health record, a tool list) reaches the cached
 * record at once; what another isolate writes is seen within MAX_AGE_MS (10 s).
 * `GET /v1/connections/{id}`, edits and the pages read D1 as before.
 */
const inUse = new IsolateCache<Connection | null>({
  maxEntries: 5_000,
  // A record carries its tool list (an MCP server's can be large) and, beside it, its decrypted
  // settings and compiled validators (executor.ts): the weight keeps what the isolate holds small.
  maxWeight: 4 * 1024 * 1024,
  weigh: (connection) => JSON.stringify(connection ?? null).length,
});
const keyOf = (userId: number, id: number) => `${userId}:${id}`;

/** The caller's connection `id`, for running one of its tools; 404 when it is not theirs. */
export async function connectionInUse(ctx: ServiceContext, id: number): Promise<Connection> {
  const key = keyOf(ctx.workspace.id, id);
  const load = async () =>
    (await ctx.db
      .select()
      .from(connections)
      .where(and(eq(connections.id, id), eq(connections.userId, ctx.workspace.id)))
      .get()) ?? null;
  const connection = await inUse.get(key, load, (work) => ctx.waitUntil(work));
  if (connection) return connection;
  // Not kept as "missing": a connection created with this id later must be found at once.
  inUse.forget((cachedKey) => cachedKey === key);
  throw notFound("Connection");
}

/** A connection saved or deleted: later calls in this isolate read it again. */
export const forgetConnectionInUse = (id: number) => inUse.forget((_, cached) => cached?.id === id);

/** A change just written to a connection's row (health, last use, tool list), applied to the cached record. */
export const noteConnectionChange = (connection: Connection, change: Partial<Connection>) =>
  inUse.update(keyOf(connection.userId, connection.id), (cached) => cached && Object.assign(cached, change));
