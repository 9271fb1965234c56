import type { Context } from "hono";
import { Hono } from "hono";
import { registerUser, signIn } from "../../auth/accounts";
import { createApiKey, listApiKeys, presentApiKey, revokeApiKey } from "../../auth/api-keys";
import { browserSession, csrfToken, csrfValid, endBrowserSession, rotateCsrfNonce, startBrowserSession } from "../../auth/browser-session";
import { Email, Password } from "../../auth/schemas";
import { HubError, notFound } from "../../core/errors";
import { listAgents } from "../../agents/service";
import { allConnections } from "../../connections/service";
import { listWorkflowSummaries } from "../../workflows/service";
import type { AppEnv } from "../../http/app-env";
import { clientAddress, consumeRateLimits } from "../../http/rate-limit";
import { OverviewPage, SignInPage } from "./home";
import { KeysPage } from "./keys";
import { type RefusalStatus, messageOf, positiveIdOf, statusOf } from "../common";
import { forgetWorkspace } from "../workspace-choice";
import { type SignedIn, chosenScopes, expired, formGuard, page, renderError, signedInContext, signedInForm, str } from "../kit";

/** The overview counts up to this many of each thing, then says "100+". */
const COUNTED = 100;

/**
 * The dashboard: server-rendered pages over the same services as the API. A person signs in at
 * `/` (a browser session cookie); every form posts back with a CSRF token bound to who is signed
 * in, from this origin only.
 */
export const dashboardPages = new Hono<AppEnv>()
  .get("/", async (c) => {
    const signedIn = await signedInContext(c);
    if (!signedIn) return renderSignIn(c);
    const { ctx } = signedIn;
    // Counted from the same lists the sections show, read one past the cap so that a full list says "100+".
    const [keys, connections, workflows, agents] = await Promise.all([
      listApiKeys(ctx, COUNTED + 1),
      allConnections(ctx),
      listWorkflowSummaries(ctx, COUNTED + 1),
      listAgents(ctx),
    ]);
    const counts = { keys: keys.length, connections: connections.length, workflows: workflows.length, agents: agents.length };
    return page(c, <OverviewPage email={signedIn.email} csrf={await csrfToken(c, ctx.actor.id)} counts={counts} cap={COUNTED} />);
  })
  .post("/", formGuard, async (c) => {
    const form = await c.req.parseBody({ all: true });
    const step = str(form.step);
    const session = await browserSession(c);
    // The sign-in and register forms were rendered for nobody; every other form for the signed-in person.
    const anonymousForm = step === "sign_in" || step === "register";
    if (!(await csrfValid(c, str(form.csrf_token), anonymousForm ? undefined : session?.userId))) return expired(c);

    if (step === "sign_out") {
      await endBrowserSession(c);
      forgetWorkspace(c);
      return c.redirect("/", 303);
    }
    if (!anonymousForm) return renderError(c, "Unknown form action.", 400);
    const [limit] = await consumeRateLimits(c.get("runtime").bindings.RATE_LIMITER, `addr:${clientAddress(c)}`, [
      { name: "auth", limit: c.get("config").limits.authAttemptsPerMinute },
    ]);
    const email = str(form.email) ?? "";
    if (!limit!.allowed) {
      c.header("Retry-After", String(limit!.resetSeconds));
      return renderSignIn(c, { email, error: `Too many attempts. Try again in ${limit!.resetSeconds} s.` }, 429);
    }

    let userId: number;
    try {
      if (step === "register") {
        if (!c.get("config").allowRegistration) return renderSignIn(c, { error: "Registration is closed on this deployment." }, 403);
        const parsed = { email: Email.safeParse(email), password: Password.safeParse(str(form.password) ?? "") };
        if (!parsed.email.success) return renderSignIn(c, { error: "Enter a valid email address." }, 422);
        if (!parsed.password.success) return renderSignIn(c, { error: "Use a password of at least 8 characters." }, 422);
        const name = (str(form.name) ?? "").trim().slice(0, 100) || null;
        userId = (await registerUser(c.get("runtime"), { email: parsed.email.data, password: parsed.password.data, name })).id;
      } else {
        userId = (await signIn(c.get("runtime"), { email, password: str(form.password) ?? "" })).id;
      }
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      // The account's failed sign-ins are used up (this form or the register form, which checks the password too).
      if (error.code === "rate_limited") {
        if (error.hints.retryAfterSeconds !== undefined) c.header("Retry-After", String(error.hints.retryAfterSeconds));
        return renderSignIn(c, { email, error: error.message }, 429);
      }
      if (error.code === "invalid_credentials") return renderSignIn(c, { email, error: error.message }, 401);
      return renderSignIn(c, { error: error.message }, 409);
    }
    // A new session and a new CSRF nonce: nothing from before the sign-in carries over.
    await startBrowserSession(c, userId);
    rotateCsrfNonce(c);
    return c.redirect("/", 303);
  })
  .get("/app/keys", async (c) => {
    const signedIn = await signedInContext(c);
    if (!signedIn) return c.redirect("/", 303);
    return renderKeys(c, signedIn);
  })
  .post("/app/keys", formGuard, async (c) => {
    // A person's keys are theirs, whatever workspace the dashboard shows.
    const posted = await signedInForm(c, "person");
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    try {
      if (str(form.step) === "create") {
        const name = (str(form.name) ?? "").trim();
        if (!name || name.length > 100) return renderKeys(c, signedIn, { error: "Give the key a name (at most 100 characters)." }, 422);
        const scopes = chosenScopes(form.scopes);
        if (!scopes) return renderKeys(c, signedIn, { error: "Choose at least one scope." }, 422);
        const created = await createApiKey(signedIn.ctx, { name, scopes });
        return renderKeys(c, signedIn, { created: { name, secret: created.secret } }, 201);
      }
      if (str(form.step) === "revoke") {
        const keyId = positiveIdOf(str(form.key_id));
        if (!keyId) throw notFound("API key");
        await revokeApiKey(signedIn.ctx, keyId);
        return c.redirect("/app/keys", 303);
      }
    } catch (error) {
      if (error instanceof HubError) return renderKeys(c, signedIn, { error: messageOf(error) }, statusOf(error));
      throw error;
    }
    return renderError(c, "Unknown form action.", 400);
  });

async function renderKeys(
  c: Context<AppEnv>,
  signedIn: SignedIn,
  extra: { created?: { name: string; secret: string }; error?: string } = {},
  status: 200 | 201 | RefusalStatus = 200,
) {
  const keys = (await listApiKeys(signedIn.ctx, 100)).map(presentApiKey);
  return page(c, <KeysPage email={signedIn.email} csrf={await csrfToken(c, signedIn.ctx.actor.id)} keys={keys} {...extra} />, status);
}

async function renderSignIn(c: Context<AppEnv>, extra: { email?: string; error?: string } = {}, status: 200 | 401 | 403 | 409 | 422 | 429 = 200) {
  const csrf = await csrfToken(c, undefined);
  return page(c, <SignInPage csrf={csrf} registrationOpen={c.get("config").allowRegistration} {...extra} />, status);
}
