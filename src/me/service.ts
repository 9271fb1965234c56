import { eq } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { notFound } from "../core/errors";
import { users } from "../db/schema";
import { presentUser } from "../auth/accounts";
import { IsolateCache } from "../core/isolate-cache";

/**
 * Account records by user id, kept like credentials (fresh 5 s, stale-while-revalidate to 10 s),
 * so `GET /v1/me` answers without a D1 read. A change through `updateMe` replaces the record in
 * this isolate at once; other isolates show it within 10 s.
 */
const userRecords = new IsolateCache<typeof users.$inferSelect | null>();

/** The caller's account, and what the calling credential may do. */
export async function describeMe(ctx: ServiceContext) {
  const load = async () => (await ctx.db.select().from(users).where(eq(users.id, ctx.actor.id)).get()) ?? null;
  const user = await userRecords.get(String(ctx.actor.id), load, (work) => ctx.waitUntil(work));
  if (!user) throw notFound("User");
  return present(ctx, user);
}

/** Changes the caller's name or default model provider. */
export async function updateMe(ctx: ServiceContext, patch: { name?: string | null; default_provider?: string | null }) {
  const [user] = await ctx.db
    .update(users)
    .set({
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.default_provider !== undefined ? { defaultProvider: patch.default_provider } : {}),
      updatedAt: new Date(),
    })
    .where(eq(users.id, ctx.actor.id))
    .returning();
  if (!user) throw notFound("User");
  userRecords.set(String(user.id), user);
  return present(ctx, user);
}

function present(ctx: ServiceContext, user: typeof users.$inferSelect) {
  // Only a caller with a live credential asks (never work started earlier, kind "delegated").
  const kind = ctx.credential.kind as Exclude<typeof ctx.credential.kind, "delegated">;
  return {
    ...presentUser(user),
    credential: { kind, scopes: [...ctx.scopes], client_id: ctx.credential.clientId },
    workspace: { id: ctx.workspace.id, role: ctx.workspace.role, personal: ctx.workspace.personal },
  };
}
