import { and, desc, eq } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { type FieldError, HubError } from "../core/errors";
import { connections } from "../db/schema";
import { getConnection } from "../connections/service";
import type { ConnectionRef } from "./bundle";

/** Looks up the id an imported step uses for a connection the bundle names. */
export type ConnectionIdOf = (ref: ConnectionRef) => number;

/**
 * Picks a connection of the acting workspace for every connection the bundle needs: the one
 * `mapped` names for its platform (it must be the workspace's, and of that platform), else the
 * workspace's newest connection of the same platform and name. One that cannot be found is a 422
 * naming `connections.<platform>`, before anything is written: a step left pointing nowhere would
 * only fail later, in a run, where the cause is harder to see.
 */
export async function mapConnections(ctx: ServiceContext, needed: ConnectionRef[], mapped: Record<string, number>): Promise<ConnectionIdOf> {
  const errors: FieldError[] = [];
  const platforms = new Set(needed.map((ref) => ref.platform));
  for (const platform of Object.keys(mapped)) {
    if (!platforms.has(platform)) errors.push(problem(platform, `The bundle needs no ${platform} connection.`));
  }
  const byPlatform = new Map<string, number>();
  for (const [platform, id] of Object.entries(mapped)) {
    if (!platforms.has(platform)) continue;
    const connection = await getConnection(ctx, id).catch((error) => {
      if (error instanceof HubError && error.code === "not_found") return undefined;
      throw error;
    });
    if (!connection) errors.push(problem(platform, `No connection of this workspace has the id ${id}.`));
    else if (connection.platform !== platform) errors.push(problem(platform, `Connection ${id} is a ${connection.platform} connection, not ${platform}.`));
    else byPlatform.set(platform, id);
  }
  const byName = new Map<string, number>();
  for (const ref of needed) {
    if (mapped[ref.platform] !== undefined) continue;
    const same = await ctx.db
      .select({ id: connections.id })
      .from(connections)
      .where(and(eq(connections.userId, ctx.workspace.id), eq(connections.platform, ref.platform), eq(connections.name, ref.name)))
      .orderBy(desc(connections.id))
      .get();
    if (same) byName.set(key(ref), same.id);
    else
      errors.push(
        problem(ref.platform, `The bundle needs a ${ref.platform} connection named "${ref.name}": name one of yours here, or create one by that name.`),
      );
  }
  if (errors.length) {
    const fields = [...new Set(errors.map((error) => error.field))].join(", ");
    throw new HubError("validation_failed", `The bundle's connections are missing or wrong: ${fields}.`, { errors });
  }
  return (ref) => byPlatform.get(ref.platform) ?? byName.get(key(ref))!;
}

const key = (ref: ConnectionRef) => `${ref.platform}\u0000${ref.name}`;
const problem = (platform: string, message: string): FieldError => ({ location: "body", field: `connections.${platform}`, message });
