import { HubError } from "./errors";
import type { Scope } from "./scopes";

/** A member's role in a workspace, weakest first (DESIGN §6.4). */
export const ROLES = ["viewer", "editor", "admin", "owner"] as const;
export type Role = (typeof ROLES)[number];

/** The roles a member can be given; `owner` is handed over, never granted alongside. */
export const GRANTABLE_ROLES = ["admin", "editor", "viewer"] as const;

export const roleAtLeast = (role: Role, needed: Role) => ROLES.indexOf(role) >= ROLES.indexOf(needed);

/**
 * The role an operation needs follows from the scopes it needs, so the REST routes and the MCP
 * server's messages decide it the same way: reading needs a viewer, anything else an editor.
 */
export const roleForScopes = (scopes: readonly Scope[]): Role => (scopes.every((scope) => scope === "data:read") ? "viewer" : "editor");

const WHAT_ROLES_MAY_DO: Record<Role, string> = {
  viewer: "read",
  editor: "create, change, run and delete",
  admin: "manage members and settings",
  owner: "delete or hand over the workspace",
};

/** 403 `insufficient_role` unless the caller's role in the workspace reaches `needed`. */
export function assertRole(workspace: { role: Role }, needed: Role): void {
  if (roleAtLeast(workspace.role, needed)) return;
  throw new HubError(
    "insufficient_role",
    `This needs the ${needed} role in the workspace (to ${WHAT_ROLES_MAY_DO[needed]}); you are ${workspace.role === "admin" || workspace.role === "owner" ? "an" : "a"} ${workspace.role}.`,
  );
}
