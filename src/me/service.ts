import { eq } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { notFound } from "../core/errors";
import { users } from "../db/schema";
import { presentUser } from "../auth/accounts";

/** The caller's account, and what the calling credential may do. */
export async function describeMe(ctx: ServiceContext) {
  const user = await ctx.db.select().from(users).where(eq(users.id, ctx.user.id)).get();
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
    .where(eq(users.id, ctx.user.id))
    .returning();
  if (!user) throw notFound("User");
  return present(ctx, user);
}

function present(ctx: ServiceContext, user: typeof users.$inferSelect) {
  // Only a caller with a live credential asks (never work started earlier, kind "delegated").
  const kind = ctx.credential.kind as Exclude<typeof ctx.credential.kind, "delegated">;
  return { ...presentUser(user), credential: { kind, scopes: [...ctx.scopes], client_id: ctx.credential.clientId } };
}
