import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { HtmlEscapedString } from "hono/utils/html";
import { findUser } from "../auth/accounts";
import { browserSession, csrfToken, csrfValid, sameOriginPost } from "../auth/browser-session";
import { contextForPrincipal, type ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import type { Principal } from "../core/principal";
import { assertRole, type Role } from "../core/roles";
import { ALL_SCOPES, type Scope, isScope } from "../core/scopes";
import type { AppEnv } from "../http/app-env";
import { consumeRateLimits } from "../http/rate-limit";
import { ErrorNote, Page } from "./layout";
import { chosenWorkspace } from "./workspace-choice";
import { PageWorkspaceContext } from "./workspace-switcher";

const MAX_FORM_BYTES = 16 * 1024;
/** Forms that carry a long chat message or a workflow's steps (URL-encoding can triple text). */
const MAX_LARGE_FORM_BYTES = 256 * 1024;

export interface SignedIn {
  ctx: ServiceContext;
  email: string;
}

/** Who a request's pages are drawn for: `page()` gives the layout's workspace switcher their context. */
const signedInOf = new WeakMap<Context<AppEnv>, SignedIn>();

/**
 * Thrown by `signedInContext` when the signed-in person is over the per-user limits; the app's
 * error handler answers with `response` (the 429 page), so no page handler can forget the check.
 */
export class PageRefused extends Error {
  constructor(readonly response: Response) {
    super("The page was refused.");
  }
}

/**
 * The signed-in person's service context (a first-party session: every scope), or nothing. Each
 * call counts one request against the person's limits, as an API request would; over them it
 * throws `PageRefused` carrying the 429 page.
 */
export async function signedInContext(c: Context<AppEnv>): Promise<SignedIn | undefined> {
  const signedIn = await sessionOf(c);
  if (!signedIn) return undefined;
  const limited = await overUserLimit(c, signedIn);
  if (limited) throw new PageRefused(await limited);
  return signedIn;
}

async function sessionOf(c: Context<AppEnv>): Promise<SignedIn | undefined> {
  const session = await browserSession(c);
  if (!session) return undefined;
  const user = await findUser(c.get("db"), session.userId);
  if (!user) return undefined;
  const principal: Principal = {
    userId: user.id,
    scopes: [...ALL_SCOPES],
    kind: "session",
    credentialId: session.grantId,
    clientId: null,
    workspaceId: null,
  };
  // The person acts (ctx.actor) in the workspace chosen in the switcher, their role there read afresh.
  const signedIn = { ctx: contextForPrincipal(c.get("runtime"), principal, await chosenWorkspace(c, principal)), email: user.email };
  signedInOf.set(c, signedIn);
  return signedIn;
}

/** A signed-in page's person and the CSRF token its forms carry; undefined when nobody is signed in. */
export async function signedInPage(c: Context<AppEnv>): Promise<(SignedIn & { csrf: string }) | undefined> {
  const signedIn = await signedInContext(c);
  if (!signedIn) return undefined;
  return { ...signedIn, csrf: await csrfToken(c, signedIn.ctx.actor.id) };
}

/**
 * A form posted by the signed-in person: the person and the parsed form, or the response to send
 * instead (to the sign-in page when nobody is signed in, "expired" when the CSRF token is wrong,
 * the refusal page when their role in the workspace is too weak). Mount `formGuard` before the
 * handler.
 *
 * This is the dashboard's one role check, as `authedRoute` is the API's: every form changes
 * something in the current workspace, so it needs an editor (DESIGN §6.4), unless it says
 * otherwise. `person`: the form is about the person themself (their keys, apps, which workspace
 * they look at) or names its workspace itself and its service checks the role there (members).
 */
export async function signedInForm(
  c: Context<AppEnv>,
  needs: Role | "person" = "editor",
): Promise<{ signedIn: SignedIn; form: Record<string, string | File | (string | File)[]> } | { response: Response }> {
  const signedIn = await sessionOf(c);
  if (!signedIn) return { response: c.redirect("/", 303) };
  const limited = await overUserLimit(c, signedIn);
  if (limited) return { response: await limited };
  const form = await c.req.parseBody({ all: true });
  if (!(await csrfValid(c, str(form.csrf_token), signedIn.ctx.actor.id))) return { response: await expired(c) };
  if (needs !== "person") {
    try {
      assertRole(signedIn.ctx.workspace, needs);
    } catch (error) {
      if (error instanceof HubError) return { response: await renderRefusal(c, signedIn, error.message) };
      throw error;
    }
  }
  return { signedIn, form };
}

/** A change the person's role does not allow: 403, with what it needs and the way to the members page. */
export async function renderRefusal(c: Context<AppEnv>, signedIn: SignedIn, message: string) {
  const csrf = await csrfToken(c, signedIn.ctx.actor.id);
  return page(
    c,
    <Page title="Not allowed" email={signedIn.email} csrf={csrf}>
      <h1>Not allowed</h1>
      <ErrorNote message={`${message} Nothing was changed.`} />
      <p>
        <a href={`/app/workspaces/${signedIn.ctx.workspace.id}/members`}>See who can change your role</a> · <a href="/">Back to the start</a>
      </p>
    </Page>,
    403,
  );
}

/**
 * The API's per-user limits (the session counts as one credential) apply to every dashboard page
 * and form, so a browser session cannot read or run anything faster than a key could.
 * Answers the 429 page when over; undefined otherwise.
 */
export async function overUserLimit(c: Context<AppEnv>, signedIn: SignedIn) {
  const { limits } = c.get("config");
  const results = await consumeRateLimits(signedIn.ctx.bindings.RATE_LIMITER, `user:${signedIn.ctx.actor.id}`, [
    { name: `requests:${signedIn.ctx.credential.id}`, limit: limits.requestsPerMinute },
    { name: "user", limit: limits.userRequestsPerMinute },
  ]);
  const refused = results.find((result) => !result.allowed);
  if (!refused) return undefined;
  c.header("Retry-After", String(refused.resetSeconds));
  return renderError(c, `Too many requests: try again in ${refused.resetSeconds} s.`, 429);
}

/** Forms: small (16 KiB; see `largeFormGuard`), url-encoded (or multipart), and from this origin only. */
export const formGuard = formGuardOf(MAX_FORM_BYTES);
/** `formGuard` for the forms that carry a chat message or a workflow's steps. */
export const largeFormGuard = formGuardOf(MAX_LARGE_FORM_BYTES);

function formGuardOf(maxSize: number) {
  return async (c: Context<AppEnv>, next: () => Promise<void>) => {
    if (!sameOriginPost(c)) return renderError(c, "Cross-site form submission refused.", 403);
    if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(c.req.header("Content-Type") ?? "")) {
      return renderError(c, "Unsupported form encoding.", 415);
    }
    const tooLarge = `The form is larger than ${maxSize / 1024} KiB: shorten what you entered, or use the API.`;
    return bodyLimit({ maxSize, onError: (inner) => renderError(inner, tooLarge, 413) })(c, next);
  };
}

export function expired(c: Context<AppEnv>) {
  return renderError(c, "The form expired or did not come from this page. Go back, reload and try again.", 403);
}

export function renderError(c: Context<AppEnv>, message: string, status: 400 | 403 | 413 | 415 | 429) {
  return page(
    c,
    <Page title="Something went wrong">
      <ErrorNote message={message} />
      <p>
        <a href="/">Back to the start</a>
      </p>
    </Page>,
    status,
  );
}

/**
 * Pages are never framed or cached, load nothing from elsewhere, and post only here. Scripts are
 * optional enhancements served by this Worker (`script-src 'self'`, never inline): every page
 * works without them.
 */
export function page(
  c: Context<AppEnv>,
  body: HtmlEscapedString | Promise<HtmlEscapedString>,
  status: 200 | 201 | 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 = 200,
) {
  c.header(
    "Content-Security-Policy",
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  c.header("X-Frame-Options", "DENY");
  c.header("Cache-Control", "no-store");
  c.header("Referrer-Policy", "same-origin");
  const signedIn = signedInOf.get(c);
  if (!signedIn) return c.html(body, status);
  const shown = { ctx: signedIn.ctx, path: new URL(c.req.url).pathname };
  return c.html(<PageWorkspaceContext.Provider value={shown}>{body}</PageWorkspaceContext.Provider>, status);
}

export const str = (value: unknown) => (typeof value === "string" ? value : undefined);

/** The scopes ticked in a form's `scopes` checkboxes, in canonical order; undefined when none or an unknown one. */
export function chosenScopes(value: unknown): Scope[] | undefined {
  const ticked = [value].flat().filter((s): s is string => typeof s === "string");
  if (ticked.length === 0 || !ticked.every(isScope)) return undefined;
  return ALL_SCOPES.filter((scope) => ticked.includes(scope));
}
