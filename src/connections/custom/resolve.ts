// Where a platform is looked up with a person in hand: the declared platforms (a static registry),
// else that person's custom platforms from D1. Loaded only when an id has the custom form, so calls
// on declared platforms cost no query, and at most once per request: the cache is keyed on the
// request's own context object (a ServiceContext, or the lookup a Durable Object builds), so it is
// dropped with the request. Nothing is kept across requests, so a platform created or deleted in
// one isolate is seen by every other at its next request, and parsed documents never pile up.

import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { customPlatforms } from "../../db/schema";
import { findPlatform } from "../platforms";
import type { Platform } from "../platforms/types";
import { platformOf } from "./custom-platform";
import { CUSTOM_SECRET_FIELDS, isCustomPlatformId } from "./declarations";

/** Who is asking: a service context, or a Durable Object's runtime with the connection's owner. */
export interface PlatformLookup {
  db: Db;
  user: { id: number };
}

/** Per request context, per person (a context acts for one person; the map keeps that explicit). */
const loaded = new WeakMap<PlatformLookup, Map<number, Promise<Map<string, Platform>>>>();

/** Every custom platform of the person, by id, loaded once per request. */
export function customPlatformsOf(lookup: PlatformLookup): Promise<Map<string, Platform>> {
  let perUser = loaded.get(lookup);
  if (!perUser) {
    perUser = new Map();
    loaded.set(lookup, perUser);
  }
  let platforms = perUser.get(lookup.user.id);
  if (!platforms) {
    platforms = lookup.db
      .select()
      .from(customPlatforms)
      .where(eq(customPlatforms.userId, lookup.user.id))
      .orderBy(desc(customPlatforms.id))
      .all()
      .then((rows) => new Map(rows.map((row) => [row.uid, platformOf(row)])));
    perUser.set(lookup.user.id, platforms);
    // A failed load is not kept: the next lookup asks again.
    platforms.catch(() => perUser.delete(lookup.user.id));
  }
  return platforms;
}

/** The platform with this id that the person may use: a declared one, or one of their own custom platforms. */
export async function resolvePlatform(lookup: PlatformLookup, id: string): Promise<Platform | undefined> {
  return findPlatform(id) ?? (isCustomPlatformId(id) ? (await customPlatformsOf(lookup)).get(id) : undefined);
}

/** After a create or delete: the request's later lookups read D1 again. */
export function forgetCustomPlatforms(lookup: PlatformLookup): void {
  loaded.get(lookup)?.delete(lookup.user.id);
}

/** Loads one custom platform of the person without the rest (a Durable Object refreshing a token). */
export async function loadCustomPlatform(lookup: PlatformLookup, id: string): Promise<Platform | undefined> {
  if (!isCustomPlatformId(id)) return undefined;
  const row = await lookup.db
    .select()
    .from(customPlatforms)
    .where(and(eq(customPlatforms.uid, id), eq(customPlatforms.userId, lookup.user.id)))
    .get();
  return row ? platformOf(row) : undefined;
}

/**
 * What masking a connection's config needs when only its row is at hand: for a custom platform,
 * the secret fields any custom platform's config can have (they are stored sealed, so only sealed
 * values are shown masked).
 */
export function presentablePlatform(id: string): Platform | undefined {
  const declared = findPlatform(id);
  if (declared || !isCustomPlatformId(id)) return declared;
  return { id, name: id, description: "", category: "developer", authKind: "none", config: undefined as never, secretFields: CUSTOM_SECRET_FIELDS, tools: [] };
}
