import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app-env";
import { HubError } from "../core/errors";
import type { Scope } from "../core/scopes";

/** 403 with RFC 6750 `insufficient_scope` unless the caller's credential carries every scope. */
export function requireScope(scope: Scope | readonly Scope[]) {
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
    await next();
  });
}

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
