import { and, eq } from "drizzle-orm";
import type { ActingWorkspace } from "../core/context";
import { personalWorkspace } from "../core/context";
import { HubError } from "../core/errors";
import type { Principal } from "../core/principal";
import type { Db } from "../db/client";
import { workspaceMembers } from "../db/schema";

/** The request header that names the workspace a call acts in (DESIGN §6.4). */
export const WORKSPACE_HEADER = "Hub-Workspace";

const noSuchWorkspace = (id: string | number) => new HubError("not_found", `Workspace ${id} not found, or you are not a member of it.`);

/**
 * Which workspace a credential acts in, and with what role: the one the request names, else the
 * one its API key is bound to, else the person's own. Membership is read from the database on
 * every call into a team workspace (one indexed row), never from a cache, so a removed member
 * loses access at once, whatever credential they hold.
 */
export async function actingWorkspace(db: Db, principal: Pick<Principal, "userId" | "workspaceId">, requested: string | undefined): Promise<ActingWorkspace> {
  let target = principal.workspaceId ?? principal.userId;
  if (requested !== undefined && requested.trim() !== "") {
    const named = parseWorkspaceId(requested);
    // A key bound to a workspace acts only there.
    if (named === undefined || (principal.workspaceId !== null && named !== principal.workspaceId)) throw noSuchWorkspace(requested.trim().slice(0, 40));
    target = named;
  }
  if (target === principal.userId) return personalWorkspace(principal.userId);
  const role = await memberRole(db, target, principal.userId);
  if (!role) throw noSuchWorkspace(target);
  return { id: target, role, personal: false };
}

/** A member's role in a team workspace, or undefined for anyone else. */
export async function memberRole(db: Db, workspaceId: number, userId: number) {
  const row = await db
    .select({ role: workspaceMembers.role })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .get();
  return row?.role;
}

/** Workspace ids are the positive integers the API hands out; anything else names none. */
export function parseWorkspaceId(value: string | number): number | undefined {
  const text = String(value).trim();
  if (!/^[1-9][0-9]{0,15}$/.test(text)) return undefined;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : undefined;
}
