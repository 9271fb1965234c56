import { Hono } from "hono";
import { resolvePlatform } from "../../connections/custom/resolve";
import { deleteConnection, getConnection } from "../../connections/service";
import { testConnectionConfig } from "../../connections/test-connection";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { initialValues } from "../forms/form-values";
import { placeErrors } from "../forms/place-errors";
import { readForm } from "../forms/read-form";
import { retestConnection } from "../../connections/retest";
import { connectionEditPages } from "./connections-edit.routes";
import { messageOf, positiveIdOf, statusOf } from "../common";
import { choiceOf, configFieldsOf, oauthFieldsOf, renderDetail, renderList, renderNew, renderNotFound } from "./connections-render";
import { connectFieldsOf } from "./connections-connect";
import { connectionOAuthPages } from "./connections-oauth.routes";
import { addConnection, reconnectConnection } from "../../connections/oauth-flow";
import type { Platform } from "../../connections/platforms/types";
import { formGuard, renderError, signedInForm, signedInPage, str } from "../kit";

const MAX_NAME = 100;

/**
 * `/app/connections`: the person's connections with their health; adding one through a form
 * built from its platform's config schema (tested before it is saved); re-testing, editing and deleting.
 * Everything goes through the connection services with the person's own context.
 */
export const connectionsPages = new Hono<AppEnv>()
  .route("/", connectionEditPages)
  .route("/", connectionOAuthPages)
  .get("/app/connections", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    // The platform chooser is a GET form; its answer lives on the "new" page.
    const platform = c.req.query("platform");
    if (platform) return c.redirect(`/app/connections/new?platform=${encodeURIComponent(platform)}`, 303);
    const savedId = positiveIdOf(c.req.query("saved"));
    const saved = savedId ? await getConnection(signedIn.ctx, savedId).catch(notFoundAsUndefined) : undefined;
    return renderList(c, signedIn, { saved: saved?.name });
  })
  .get("/app/connections/new", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    const id = c.req.query("platform");
    if (!id) return renderNew(c, signedIn, { fields: [], name: "", values: {}, errors: {} });
    // A declared platform, or one of the person's custom platforms.
    const platform = await resolvePlatform(signedIn.ctx, id);
    if (!platform)
      return renderNew(c, signedIn, { fields: [], name: "", values: {}, errors: {}, error: "There is no such platform; choose one from the list." }, 404);
    const fields = configFieldsOf(platform);
    return renderNew(c, signedIn, {
      platform: choiceOf(platform),
      fields,
      name: "",
      values: initialValues(fields),
      errors: {},
      connect: connectForm(platform),
    });
  })
  .post("/app/connections/new", formGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    const step = str(form.step);
    if (step !== "test" && step !== "save") return renderError(c, "Unknown form action.", 400);
    const platform = await resolvePlatform(signedIn.ctx, str(form.platform) ?? "");
    if (!platform) return renderNew(c, signedIn, { fields: [], name: "", values: {}, errors: {}, error: "Choose one of the platforms listed." }, 422);
    const fields = configFieldsOf(platform);
    const read = readForm(fields, form);
    const name = (str(form.name) ?? "").trim();
    const shown = {
      platform: choiceOf(platform),
      fields,
      name: name.slice(0, MAX_NAME),
      values: read.values,
      secretsCleared: read.secretsEntered,
      connect: connectForm(platform),
    };
    const errors = { ...read.errors };
    if (step === "save" && (!name || name.length > MAX_NAME)) errors.name = `Give the connection a name (at most ${MAX_NAME} characters).`;
    if (Object.keys(errors).length) return renderNew(c, signedIn, { ...shown, errors, error: "Some fields need attention; see below." }, 422);
    try {
      if (step === "test") {
        // Tried as typed, nothing stored: the outcome is shown above the same form.
        const outcome = await testConnectionConfig(signedIn.ctx, { platform: platform.id, config: read.value }, c.req.raw.signal);
        return renderNew(c, signedIn, { ...shown, errors, outcome });
      }
      const { connection: created, authorization } = await addConnection(
        signedIn.ctx,
        { platform: platform.id, name, config: read.value, return_to: "/app/connections" },
        new URL(c.req.url).origin,
      );
      // An MCP server behind OAuth: on to its authorization, which comes back to the connections page.
      if (authorization) return c.redirect(authorization.authorizeUrl, 303);
      return c.redirect(`/app/connections?saved=${created.id}`, 303);
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      const placed = placeErrors(fields, error.errors ?? [], "config");
      return renderNew(c, signedIn, { ...shown, errors: placed.errors, error: [error.message, ...placed.unplaced].join(" ") }, statusOf(error));
    }
  })
  .get("/app/connections/:id", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    const id = positiveIdOf(c.req.param("id"));
    const connection = id ? await getConnection(signedIn.ctx, id).catch(notFoundAsUndefined) : undefined;
    if (!connection) return renderNotFound(c, signedIn);
    return renderDetail(c, signedIn, connection);
  })
  .post("/app/connections/:id", formGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    const id = positiveIdOf(c.req.param("id"));
    if (!id) return renderNotFound(c, signedIn);
    try {
      switch (str(form.step)) {
        case "test": {
          const { connection, outcome } = await retestConnection(signedIn.ctx, id, c.req.raw.signal);
          // The outcome is shown where the button was: on the list, or on the connection's page.
          if (str(form.from) === "list") return renderList(c, signedIn, { tested: { name: connection.name, outcome } });
          return renderDetail(c, signedIn, connection, { outcome });
        }
        case "delete":
          await deleteConnection(signedIn.ctx, id);
          return c.redirect("/app/connections", 303);
        case "reconnect": {
          const authorization = await reconnectConnection(signedIn.ctx, id, { return_to: `/app/connections/${id}` }, new URL(c.req.url).origin);
          return c.redirect(authorization.authorizeUrl, 303);
        }
        default:
          return renderError(c, "Unknown form action.", 400);
      }
    } catch (error) {
      if (error instanceof HubError && error.code === "not_found") return renderNotFound(c, signedIn);
      if (error instanceof HubError) return renderList(c, signedIn, { error: messageOf(error) }, statusOf(error));
      throw error;
    }
  });

/** "Connect with …" as a platform with OAuth first shows it. */
function connectForm(platform: Platform) {
  if (!platform.oauth) return undefined;
  const fields = connectFieldsOf(oauthFieldsOf(platform));
  return { fields, name: "", values: initialValues(fields), errors: {} };
}

function notFoundAsUndefined(error: unknown): undefined {
  if (error instanceof HubError && error.code === "not_found") return undefined;
  throw error;
}
