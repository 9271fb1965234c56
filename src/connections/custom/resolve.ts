// Where a platform is looked up with a person in hand: the declared platforms (a static registry),
// else one of that person's custom platforms. Which custom platforms a person has is read from D1
// at most once per request and never kept after it (only cheap columns: ids, names, sizes), so a
// platform created or deleted in any isolate is usable, or refused, from the next request on.
// What a platform compiles to is kept per isolate by row id (compiled.ts): a request loads a
// platform's declarations only when this isolate has not compiled that row yet, and only the rows
// it needs (one for a tool call or a connection, a page's worth for the catalog).

import { and, desc, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { customPlatforms } from "../../db/schema";
import { findPlatform } from "../platforms";
import type { Platform } from "../platforms/types";
import { compiledPlatform, forgetCompiledPlatform, keepCompiledPlatform } from "./compiled";
import { platformOf } from "./custom-platform";
import { CUSTOM_SECRET_FIELDS, isCustomPlatformId } from "./declarations";

/** Who is asking: a service context, or a Durable Object's runtime with the connection's owner. */
export interface PlatformLookup {
  db: Db;
  workspace: { id: number };
}

/** A custom platform's cheap columns: enough to order and page the catalog and to find its compiled form. */
export interface CustomPlatformHead {
  id: number;
  uid: string;
  name: string;
  toolCount: number;
  toolsBytes: number;
}

const headColumns = {
  id: customPlatforms.id,
  uid: customPlatforms.uid,
  name: customPlatforms.name,
  toolCount: customPlatforms.toolCount,
  toolsBytes: customPlatforms.toolsBytes,
};

/** What one request has read, per person (a context acts for one person; the key keeps that explicit). */
interface RequestReads {
  heads?: Promise<CustomPlatformHead[]>;
  byUid: Map<string, Promise<Platform | undefined>>;
}
const reads = new WeakMap<PlatformLookup, Map<number, RequestReads>>();

function readsOf(lookup: PlatformLookup): RequestReads {
  let perUser = reads.get(lookup);
  if (!perUser) {
    perUser = new Map();
    reads.set(lookup, perUser);
  }
  let mine = perUser.get(lookup.workspace.id);
  if (!mine) {
    mine = { byUid: new Map() };
    perUser.set(lookup.workspace.id, mine);
  }
  return mine;
}

/** Keeps a request's read, dropping it if it fails (the next lookup asks again). */
function remembered<T>(promise: Promise<T>, forget: () => void): Promise<T> {
  promise.catch(forget);
  return promise;
}

/** The person's custom platforms, newest first, without their declarations (at most 20: the quota). */
export function customPlatformHeads(lookup: PlatformLookup): Promise<CustomPlatformHead[]> {
  const mine = readsOf(lookup);
  mine.heads ??= remembered(
    lookup.db.select(headColumns).from(customPlatforms).where(eq(customPlatforms.userId, lookup.workspace.id)).orderBy(desc(customPlatforms.id)).all(),
    () => {
      mine.heads = undefined;
    },
  );
  return mine.heads;
}

/** The compiled platforms of these heads (the person's own: heads come from their rows), reading only the rows this isolate lacks. */
export async function compiledPlatforms(lookup: PlatformLookup, heads: CustomPlatformHead[]): Promise<Platform[]> {
  const found = new Map<number, Platform>();
  const missing: number[] = [];
  for (const head of heads) {
    const platform = compiledPlatform(head.id);
    if (platform) found.set(head.id, platform);
    else missing.push(head.id);
  }
  if (missing.length) {
    const rows = await lookup.db
      .select()
      .from(customPlatforms)
      .where(and(eq(customPlatforms.userId, lookup.workspace.id), inArray(customPlatforms.id, missing)))
      .all();
    for (const row of rows) {
      const platform = platformOf(row);
      keepCompiledPlatform(row.id, platform, row.toolsBytes);
      found.set(row.id, platform);
    }
  }
  // A row deleted since its head was read is left out.
  return heads.flatMap((head) => found.get(head.id) ?? []);
}

/** Every custom platform of the person, by id (the whole catalog's builds; a page reads compiledPlatforms of its own heads). */
export async function customPlatformsOf(lookup: PlatformLookup): Promise<Map<string, Platform>> {
  const platforms = await compiledPlatforms(lookup, await customPlatformHeads(lookup));
  return new Map(platforms.map((platform) => [platform.id, platform]));
}

/** One custom platform of the person, by its id: one small read, and its declarations only if this isolate has not compiled them. */
export function loadCustomPlatform(lookup: PlatformLookup, uid: string): Promise<Platform | undefined> {
  if (!isCustomPlatformId(uid)) return Promise.resolve(undefined);
  const mine = readsOf(lookup);
  let platform = mine.byUid.get(uid);
  if (!platform) {
    platform = remembered(
      (async () => {
        const head = await lookup.db
          .select(headColumns)
          .from(customPlatforms)
          .where(and(eq(customPlatforms.uid, uid), eq(customPlatforms.userId, lookup.workspace.id)))
          .get();
        return head ? (await compiledPlatforms(lookup, [head]))[0] : undefined;
      })(),
      () => mine.byUid.delete(uid),
    );
    mine.byUid.set(uid, platform);
  }
  return platform;
}

/** The platform with this id that the person may use: a declared one, or one of their own custom platforms. */
export async function resolvePlatform(lookup: PlatformLookup, id: string): Promise<Platform | undefined> {
  return findPlatform(id) ?? (isCustomPlatformId(id) ? loadCustomPlatform(lookup, id) : undefined);
}

/** After a create or delete: the request's later lookups read D1 again, and a deleted row's compiled form is dropped. */
export function forgetCustomPlatforms(lookup: PlatformLookup, deletedRowId?: number): void {
  reads.get(lookup)?.delete(lookup.workspace.id);
  if (deletedRowId !== undefined) forgetCompiledPlatform(deletedRowId);
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
