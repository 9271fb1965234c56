import type { Context } from "hono";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../../http/app-env";
import { clientAddress, consumeRateLimits } from "../../http/rate-limit";
import { findUser, signIn } from "../accounts";
import { HubError } from "../../core/errors";
import { createAuthorizationCode } from "../authorization-codes";
import { formatScopes } from "../../core/scopes";
import { browserSessionUser, csrfToken, csrfValid, endBrowserSession, rotateCsrfNonce, sameOriginPost, startBrowserSession } from "../browser-session";
import { ConsentPage, ErrorPage, SignInPage } from "./pages";
import { isOwnResource } from "../resource";
import { checkAuthorizeRequest, redirectBack, type AuthorizeRequest } from "./request";

const MAX_FORM_BYTES = 16 * 1024;

/**
 * GET /auth/authorize shows sign-in (if needed) then consent; the forms POST back to the same
 * URL, so the authorization request travels in the query string throughout.
 */
export const authorizePage = new Hono<AppEnv>()
  .get("/auth/authorize", async (c) => {
    const check = await checkAuthorizeRequest(c.get("db"), new URL(c.req.url).searchParams);
    if (check.kind === "page_error") return renderError(c, check.message);
    if (check.kind === "redirect_error") {
      return c.redirect(redirectBack(check.redirectUri, { error: check.error, error_description: check.description, state: check.state }), 302);
    }
    const userId = await browserSessionUser(c);
    const user = userId ? await findUser(c.get("db"), userId) : undefined;
    return user ? renderConsent(c, check.request, user.id, user.email) : renderSignIn(c, check.request);
  })
  .post("/auth/authorize", bodyLimit({ maxSize: MAX_FORM_BYTES, onError: (c) => renderError(c, "The form is too large.", 413) }), async (c) => {
    // Same-origin forms only: a foreign Origin is refused before anything else is read. Browsers
    // send "Origin: null" in some privacy modes; then only their own same-origin marker will do.
    if (!sameOriginPost(c)) return renderError(c, "Cross-site form submission refused.", 403);
    if (!/^application\/x-www-form-urlencoded\b/i.test(c.req.header("Content-Type") ?? "")) return renderError(c, "Unsupported form encoding.", 415);
    const form = await c.req.parseBody();
    const step = str(form.step);
    const sessionUser = await browserSessionUser(c);
    // The sign-in form was rendered for nobody; every later form for the signed-in user.
    if (!(await csrfValid(c, str(form.csrf_token), step === "sign_in" ? undefined : sessionUser))) {
      return renderError(c, "The form expired or did not come from this page. Go back and try again.", 403);
    }
    const check = await checkAuthorizeRequest(c.get("db"), new URL(c.req.url).searchParams);
    if (check.kind === "page_error") return renderError(c, check.message);
    if (check.kind === "redirect_error") {
      return c.redirect(redirectBack(check.redirectUri, { error: check.error, error_description: check.description, state: check.state }), 302);
    }
    const request = check.request;

    if (step === "sign_in") {
      const [limit] = await consumeRateLimits(c.get("runtime").bindings.RATE_LIMITER, `addr:${clientAddress(c)}`, [
        { name: "auth", limit: c.get("config").limits.authAttemptsPerMinute },
      ]);
      const email = str(form.email) ?? "";
      if (!limit!.allowed) {
        c.header("Retry-After", String(limit!.resetSeconds));
        return renderSignIn(c, request, { email, error: `Too many attempts. Try again in ${limit!.resetSeconds} s.` }, 429);
      }
      let user: Awaited<ReturnType<typeof signIn>>;
      try {
        user = await signIn(c.get("runtime"), { email, password: str(form.password) ?? "" });
      } catch (error) {
        if (!(error instanceof HubError) || (error.code !== "rate_limited" && error.code !== "invalid_credentials")) throw error;
        // rate_limited: the account's failed sign-ins are used up, and the password was not checked.
        if (error.code === "rate_limited" && error.hints.retryAfterSeconds !== undefined) c.header("Retry-After", String(error.hints.retryAfterSeconds));
        return renderSignIn(c, request, { email, error: error.message }, error.code === "rate_limited" ? 429 : 401);
      }
      await startBrowserSession(c, user.id);
      return renderConsent(c, request, user.id, user.email, rotateCsrfNonce(c));
    }

    const userId = sessionUser;
    if (!userId || step === "sign_out") {
      await endBrowserSession(c);
      return renderSignIn(c, request, step === "sign_out" ? {} : { error: "Your sign-in expired. Sign in again." });
    }
    if (step === "deny") {
      return c.redirect(
        redirectBack(request.redirectUri, { error: "access_denied", error_description: "The user denied the request.", state: request.state }),
        302,
      );
    }
    if (step === "approve") {
      const code = await createAuthorizationCode(c.get("db"), {
        clientId: request.app.clientId,
        userId,
        redirectUri: request.redirectUri,
        scopes: formatScopes(request.scopes),
        codeChallenge: request.codeChallenge,
        resource: request.resource,
      });
      return c.redirect(redirectBack(request.redirectUri, { code, state: request.state }), 302);
    }
    return renderError(c, "Unknown form action.");
  });

const str = (value: unknown) => (typeof value === "string" ? value : undefined);

/** Pages are never framed or cached; forms may post only here and lead only to the client. */
function pageHeaders(c: Context<AppEnv>, redirectUri?: string) {
  const formTargets = ["'self'", redirectUri ? new URL(redirectUri).origin : ""].filter(Boolean).join(" ");
  c.header("Content-Security-Policy", `default-src 'none'; style-src 'unsafe-inline'; form-action ${formTargets}; frame-ancestors 'none'; base-uri 'none'`);
  c.header("X-Frame-Options", "DENY");
  c.header("Cache-Control", "no-store");
  // same-origin, not no-referrer: with no-referrer browsers send "Origin: null" on our own forms,
  // and the authorize URL must still never leak to other sites.
  c.header("Referrer-Policy", "same-origin");
}

async function renderSignIn(c: Context<AppEnv>, request: AuthorizeRequest, extra: { email?: string; error?: string } = {}, status: 200 | 401 | 429 = 200) {
  pageHeaders(c, request.redirectUri);
  const csrf = await csrfToken(c, undefined);
  return c.html(<SignInPage appName={request.app.name} action={formAction(c)} csrf={csrf} {...extra} />, status);
}

async function renderConsent(c: Context<AppEnv>, request: AuthorizeRequest, userId: number, userEmail: string, freshNonce?: string) {
  pageHeaders(c, request.redirectUri);
  const csrf = await csrfToken(c, userId, freshNonce);
  const origin = new URL(c.req.url).origin;
  return c.html(
    <ConsentPage
      appName={request.app.name}
      userEmail={userEmail}
      scopes={request.scopes}
      action={formAction(c)}
      csrf={csrf}
      redirectHost={new URL(request.redirectUri).host}
      resource={request.resource ?? `${origin} (this hub's API and its MCP endpoint)`}
      foreignResource={request.resource !== null && !isOwnResource(c.get("config"), origin, request.resource)}
      selfRegistered={request.app.userId === null}
    />,
  );
}

function renderError(c: Context<AppEnv>, message: string, status: 400 | 403 | 413 | 415 = 400) {
  pageHeaders(c);
  return c.html(<ErrorPage message={message} />, status);
}

/** The form posts back to this very URL, query string included. */
function formAction(c: Context<AppEnv>): string {
  const url = new URL(c.req.url);
  return `${url.pathname}${url.search}`;
}
