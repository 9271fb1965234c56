import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { SESSION_TTL_SECONDS } from "../auth/browser-session";
import { type ActingWorkspace, personalWorkspace } from "../core/context";
import { HubError } from "../core/errors";
import type { Principal } from "../core/principal";
import type { AppEnv } from "../http/app-env";
import { actingWorkspace } from "../workspaces/resolve";

/**
 * The workspace a person chose in the dashboard's switcher, kept in a cookie beside the session
 * (HttpOnly, SameSite=Lax, Secure over https). It names a workspace, never grants one: every
 * request reads the person's membership afresh (`actingWorkspace`), as the API does for the
 * Hub-Workspace header. Path "/" because the overview at "/" shows the chosen workspace too.
 */
const WORKSPACE_COOKIE = "ahk_workspace";

const options = (c: Context<AppEnv>) => ({
  httpOnly: true,
  sameSite: "Lax" as const,
  path: "/",
  secure: new URL(c.req.url).protocol === "https:",
});

/**
 * The workspace the dashboard acts in for this person: the chosen one while they belong to it,
 * else their personal workspace, and a choice that no longer holds (they left or were removed)
 * is forgotten rather than shown as an error.
 */
export async function chosenWorkspace(c: Context<AppEnv>, principal: Pick<Principal, "userId" | "workspaceId">): Promise<ActingWorkspace> {
  const chosen = getCookie(c, WORKSPACE_COOKIE);
  if (!chosen) return personalWorkspace(principal.userId);
  try {
    return await actingWorkspace(c.get("db"), principal, chosen);
  } catch (error) {
    if (!(error instanceof HubError) || error.code !== "not_found") throw error;
    forgetWorkspace(c);
    return personalWorkspace(principal.userId);
  }
}

/** Remembers the choice for as long as a sign-in lasts; the personal workspace needs no cookie. */
export function rememberWorkspace(c: Context<AppEnv>, workspace: ActingWorkspace): void {
  if (workspace.personal) forgetWorkspace(c);
  else setCookie(c, WORKSPACE_COOKIE, String(workspace.id), { ...options(c), maxAge: SESSION_TTL_SECONDS });
}

export function forgetWorkspace(c: Context<AppEnv>): void {
  deleteCookie(c, WORKSPACE_COOKIE, options(c));
}
