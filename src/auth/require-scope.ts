import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../http/app-env";
import { ApiError } from "../http/errors";
import type { Scope } from "./scopes";

/** 403 with RFC 6750 `insufficient_scope` unless the caller's credential carries `scope`. */
export function requireScope(scope: Scope) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const principal = c.get("principal");
    if (!principal.scopes.includes(scope)) {
      throw new ApiError("insufficient_scope", `This operation needs the scope "${scope}".`, {
        headers: {
          "WWW-Authenticate": `Bearer realm="agent-automation-hub", error="insufficient_scope", scope="${scope}"`,
        },
      });
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
    throw new ApiError("forbidden", "Tokens issued to OAuth apps cannot manage API keys or OAuth apps; sign in or use an API key.");
  }
  await next();
});
