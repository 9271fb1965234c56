import type { Context } from "hono";
import { Hono } from "hono";
import { listAuthorizations, revokeAuthorization } from "../../auth/authorizations";
import { csrfToken } from "../../auth/browser-session";
import { createOAuthApp, deleteOAuthApp, listOAuthApps, presentOAuthApp } from "../../auth/oauth-apps";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { AppsPage } from "./apps";
import { type RefusalStatus, messageOf, statusOf } from "../common";
import { type SignedIn, chosenScopes, formGuard, page, renderError, signedInContext, signedInForm, str } from "../kit";

const MAX_REDIRECT_URIS = 10;

/** `/app/apps`: OAuth apps the person registered, and the apps they approved. */
export const appsPages = new Hono<AppEnv>()
  .get("/app/apps", async (c) => {
    const signedIn = await signedInContext(c);
    if (!signedIn) return c.redirect("/", 303);
    return renderApps(c, signedIn);
  })
  .post("/app/apps", formGuard, async (c) => {
    // A person's OAuth apps and the apps they approved are theirs, whatever workspace the dashboard shows.
    const posted = await signedInForm(c, "person");
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    const step = str(form.step);
    try {
      if (step === "create") {
        const name = (str(form.name) ?? "").trim();
        if (!name || name.length > 100) return renderApps(c, signedIn, { error: "Give the app a name (at most 100 characters)." }, 422);
        const redirectUris = (str(form.redirect_uris) ?? "")
          .split(/\s+/)
          .map((uri) => uri.trim())
          .filter(Boolean);
        if (redirectUris.length === 0 || redirectUris.length > MAX_REDIRECT_URIS) {
          return renderApps(c, signedIn, { error: `Give between 1 and ${MAX_REDIRECT_URIS} redirect URIs.` }, 422);
        }
        const scopes = chosenScopes(form.scopes);
        if (!scopes) return renderApps(c, signedIn, { error: "Choose at least one scope." }, 422);
        const { app, clientSecret } = await createOAuthApp(signedIn.ctx, { name, redirectUris, scopes });
        return renderApps(c, signedIn, { created: { name, clientId: app.clientId, secret: clientSecret } }, 201);
      }
      if (step === "delete" || step === "revoke") {
        const clientId = str(form.client_id) ?? "";
        await (step === "delete" ? deleteOAuthApp(signedIn.ctx, clientId) : revokeAuthorization(signedIn.ctx, clientId));
        return c.redirect("/app/apps", 303);
      }
    } catch (error) {
      if (error instanceof HubError) return renderApps(c, signedIn, { error: messageOf(error) }, statusOf(error));
      throw error;
    }
    return renderError(c, "Unknown form action.", 400);
  });

async function renderApps(
  c: Context<AppEnv>,
  signedIn: SignedIn,
  extra: { created?: { name: string; clientId: string; secret: string }; error?: string } = {},
  status: 200 | 201 | RefusalStatus = 200,
) {
  const [apps, approved] = await Promise.all([listOAuthApps(signedIn.ctx, 100), listAuthorizations(signedIn.ctx)]);
  return page(
    c,
    <AppsPage email={signedIn.email} csrf={await csrfToken(c, signedIn.ctx.actor.id)} apps={apps.map(presentOAuthApp)} approved={approved} {...extra} />,
    status,
  );
}
