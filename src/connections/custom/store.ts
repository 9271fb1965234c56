// Custom platforms in D1: made from a document, listed, read and deleted by their maker only.

import { and, desc, eq, lt } from "drizzle-orm";
import type { ServiceContext } from "../../core/context";
import { HubError, notFound } from "../../core/errors";
import { connections, customPlatforms, type CustomPlatformRow } from "../../db/schema";
import { insertWithinQuota } from "../../db/quota";
import { addressPolicyFor } from "../../net/address-policy";
import { importOpenApi } from "./openapi-import";
import { forgetCustomPlatforms } from "./resolve";
import { utf8Bytes } from "./utf8-bytes";

export const MAX_CUSTOM_PLATFORMS_PER_USER = 20;

/** A platform as lists show it: every column but the declarations' JSON, which can be 1.9 MB. */
export type CustomPlatformSummary = Omit<CustomPlatformRow, "tools">;

const summaryColumns = {
  id: customPlatforms.id,
  uid: customPlatforms.uid,
  userId: customPlatforms.userId,
  name: customPlatforms.name,
  description: customPlatforms.description,
  openapiVersion: customPlatforms.openapiVersion,
  serverUrl: customPlatforms.serverUrl,
  auth: customPlatforms.auth,
  toolCount: customPlatforms.toolCount,
  toolsBytes: customPlatforms.toolsBytes,
  createdAt: customPlatforms.createdAt,
};

/** `cp_` and 8 characters of [a-z0-9]: ~41 bits, unique by the column's index. */
function newPlatformId(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return `cp_${Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("")}`;
}

export async function createCustomPlatform(ctx: ServiceContext, input: { openapi: unknown; name?: string }): Promise<CustomPlatformRow> {
  const held = eq(customPlatforms.userId, ctx.workspace.id);
  const full = () => new HubError("quota_exceeded", `An account can hold at most ${MAX_CUSTOM_PLATFORMS_PER_USER} custom platforms; delete one first.`);
  if ((await ctx.db.$count(customPlatforms, held)) >= MAX_CUSTOM_PLATFORMS_PER_USER) throw full();
  const declaration = importOpenApi(input.openapi, { name: input.name, policy: addressPolicyFor(ctx.config) });
  const insert = ctx.db
    .insert(customPlatforms)
    .values({
      uid: newPlatformId(),
      userId: ctx.workspace.id,
      name: declaration.name,
      description: declaration.description,
      openapiVersion: declaration.openapi_version,
      serverUrl: declaration.server_url,
      auth: declaration.auth,
      tools: declaration.tools,
      toolCount: declaration.tools.length,
      toolsBytes: utf8Bytes(JSON.stringify(declaration.tools)),
    })
    .returning();
  const row = await insertWithinQuota<CustomPlatformRow>(ctx.db, insert, customPlatforms, held, MAX_CUSTOM_PLATFORMS_PER_USER);
  if (!row) throw full();
  forgetCustomPlatforms(ctx);
  return row;
}

/** A page of the caller's platforms, newest first, without their declarations. */
export function listCustomPlatforms(ctx: ServiceContext, limit: number, beforeId?: number): Promise<CustomPlatformSummary[]> {
  return ctx.db
    .select(summaryColumns)
    .from(customPlatforms)
    .where(and(eq(customPlatforms.userId, ctx.workspace.id), beforeId ? lt(customPlatforms.id, beforeId) : undefined))
    .orderBy(desc(customPlatforms.id))
    .limit(limit)
    .all();
}

export async function getCustomPlatform(ctx: ServiceContext, platformId: string): Promise<CustomPlatformRow> {
  const row = await ctx.db
    .select()
    .from(customPlatforms)
    .where(and(eq(customPlatforms.uid, platformId), eq(customPlatforms.userId, ctx.workspace.id)))
    .get();
  if (!row) throw notFound("Platform");
  return row;
}

/**
 * Deletes a custom platform that no connection uses. One with connections is a 409 naming them:
 * deleting them silently would break the workflows and agents that call their tools, so the
 * person deletes the connections first, knowingly.
 */
export async function deleteCustomPlatform(ctx: ServiceContext, platformId: string): Promise<void> {
  const row = await ctx.db
    .select({ id: customPlatforms.id, uid: customPlatforms.uid })
    .from(customPlatforms)
    .where(and(eq(customPlatforms.uid, platformId), eq(customPlatforms.userId, ctx.workspace.id)))
    .get();
  if (!row) throw notFound("Platform");
  const used = await ctx.db
    .select({ id: connections.id })
    .from(connections)
    .where(and(eq(connections.userId, ctx.workspace.id), eq(connections.platform, row.uid)))
    .limit(20)
    .all();
  if (used.length)
    throw new HubError(
      "conflict",
      `Platform ${row.uid} still has connections (${used.map((c) => c.id).join(", ")}); delete them first (DELETE /v1/connections/{connection_id}).`,
    );
  await ctx.db.delete(customPlatforms).where(and(eq(customPlatforms.id, row.id), eq(customPlatforms.userId, ctx.workspace.id)));
  forgetCustomPlatforms(ctx, row.id);
}
