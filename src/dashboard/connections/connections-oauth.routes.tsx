import { Hono } from "hono";
import { completeAuthorization } from "../../connections/oauth-callback";
import { CALLBACK_PATH, startOAuthConnection } from "../../connections/oauth-flow";
import { resolvePlatform } from "../../connections/custom/resolve";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { placeErrors } from "../forms/place-errors";
import { readForm } from "../forms/read-form";
import { messageOf, statusOf } from "../common";
import { connectFieldsOf } from "./connections-connect";
import { AuthorizationOutcomePage, SignInToFinishPage } from "./connections-oauth";
import { choiceOf, configFieldsOf, oauthFieldsOf, renderNew } from "./connections-render";
import { initialValues } from "../forms/form-values";
import { formGuard, page, signedInForm, signedInPage, str } from "../kit";

const MAX_NAME = 100;
const CONNECTIONS_PAGE = "/app/connections";

/**
 * "Connect with <platform>" and the page providers send the person back to. Connecting posts to
 * the start of the authorization (the service POST /v1/connections/oauth/start calls) and goes on
 * to the provider; the callback completes it for the signed-in person and returns to the
 * connections page.
 */
export const connectionOAuthPages = new Hono<AppEnv>()
  .post("/app/connections/connect", formGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    // A custom platform whose document declares OAuth connects here too.
    const platform = await resolvePlatform(signedIn.ctx, str(form.platform) ?? "");
    if (!platform?.oauth)
      return renderNew(c, signedIn, { fields: [], name: "", values: {}, errors: {}, error: "Choose a platform that connects with OAuth." }, 422);
    const fields = connectFieldsOf(oauthFieldsOf(platform));
    const read = readForm(fields, form);
    const name = (str(form.name) ?? "").trim();
    const tokenFields = platform.authKind === "oauth2" ? [] : configFieldsOf(platform);
    const shown = {
      platform: choiceOf(platform),
      fields: tokenFields,
      name: "",
      values: initialValues(tokenFields),
      errors: {},
      connect: { fields, name: name.slice(0, MAX_NAME), values: read.values, errors: read.errors },
    };
    if (!name || name.length > MAX_NAME) {
      const errors = { ...read.errors, name: `Give the connection a name (at most ${MAX_NAME} characters).` };
      return renderNew(c, signedIn, { ...shown, connect: { ...shown.connect, errors }, error: "Some fields need attention; see below." }, 422);
    }
    if (Object.keys(read.errors).length) return renderNew(c, signedIn, { ...shown, error: "Some fields need attention; see below." }, 422);
    try {
      const started = await startOAuthConnection(
        signedIn.ctx,
        { platform: platform.id, name, config: read.value, return_to: CONNECTIONS_PAGE },
        new URL(c.req.url).origin,
      );
      return c.redirect(started.authorizeUrl, 303);
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      const placed = placeErrors(fields, error.errors ?? [], "config");
      return renderNew(
        c,
        signedIn,
        { ...shown, connect: { ...shown.connect, errors: placed.errors }, error: [messageOf(error), ...placed.unplaced].join(" ") },
        statusOf(error),
      );
    }
  })
  .get(CALLBACK_PATH, async (c) => {
    // The URL carries a code: it is never sent on to another page.
    c.header("Referrer-Policy", "no-referrer");
    const signedIn = await signedInPage(c);
    if (!signedIn) return page(c, <SignInToFinishPage />, 401);
    const outcome = await completeAuthorization(signedIn.ctx, new URL(c.req.url));
    const { email, csrf } = signedIn;
    if (outcome.kind === "connected") {
      if (outcome.returnTo) return c.redirect(outcome.returnTo, 303);
      const message = `${outcome.connection.name} is connected: its tools are ready to use.`;
      return page(c, <AuthorizationOutcomePage email={email} csrf={csrf} title="Connected" message={message} ok back={CONNECTIONS_PAGE} />);
    }
    if (outcome.kind === "failed") {
      return page(
        c,
        <AuthorizationOutcomePage
          email={email}
          csrf={csrf}
          title="Not connected"
          message={outcome.message}
          ok={false}
          back={outcome.returnTo ?? CONNECTIONS_PAGE}
        />,
        400,
      );
    }
    return page(
      c,
      <AuthorizationOutcomePage email={email} csrf={csrf} title="Not connected" message={outcome.message} ok={false} back={CONNECTIONS_PAGE} />,
      outcome.status,
    );
  });
