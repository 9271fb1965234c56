import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app-env";
import { HubError } from "../core/errors";
import type { Scope } from "../core/scopes";
import { assertRole, type Role } from "../core/roles";

/**
 * The one access check of every authenticated operation: 403 with RFC 6750 `insufficient_scope`
 * unless the credential carries every scope, then 403 `insufficient_role` unless the caller's role
 * in the workspace the request acts in reaches `role` (none: the operation is about the person,
 * not a workspace, as their keys and profile are).
 */
export function requireScope(scope: Scope | readonly Scope[], role?: Role) {
  const needed: readonly Scope[] = typeof scope === "string" ? [scope] : scope;
  const list = needed.join(" ");
  return createMiddleware<AppEnv>(async (c, next) => {
    const principal = c.get("principal");
    const missing = needed.filter((s) => !principal.scopes.includes(s));
    if (missing.length) {
      throw new HubError(
        "insufficient_scope",
        `This operation needs the scope${needed.length > 1 ? "s" : ""} "${needed.join('" and "')}"; the credential lacks "${missing.join('", "')}".`,
        { challenge: `Bearer realm="agent-automation-hub", error="insufficient_scope", scope="${list}"` },
      );
    }
    if (role) assertRole(c.var.ctx.workspace, role);
    await next();
  });
}

/**
 * What reaches beyond one workspace (OAuth apps and grants, which act as the whole person; new
 * workspaces) is not for a key bound to a workspace: it would break out of its binding.
 */
export const requireUnbound = createMiddleware<AppEnv>(async (c, next) => {
  const bound = c.get("principal").workspaceId;
  if (bound !== null) throw new HubError("forbidden", `This key is bound to workspace ${bound}; sign in or use a key that is not bound to a workspace.`);
  await next();
});

/**
 * Managing credentials (API keys, OAuth apps) is for the account holder only: a token an app
 * obtained could otherwise mint credentials that outlive the app's revocation.
 */
export const requireFirstParty = createMiddleware<AppEnv>(async (c, next) => {
  if (c.get("principal").kind === "oauth") {
    throw new HubError("forbidden", "Tokens issued to OAuth apps cannot manage API keys or OAuth apps; sign in or use an API key.");
  }
  await next();
});
