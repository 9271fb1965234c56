import type { Context } from "hono";
import { Hono } from "hono";
import { csrfToken } from "../../auth/browser-session";
import { resolvePlatform } from "../../connections/custom/resolve";
import type { Platform } from "../../connections/platforms/types";
import { platformFor } from "../../connections/platforms/oauth-spec";
import { getConnection, presentConnection, updateConnection } from "../../connections/service";
import { HubError } from "../../core/errors";
import type { Connection } from "../../db/schema";
import type { AppEnv } from "../../http/app-env";
import { EditConnectionPage, type EditConnectionProps } from "./connections-edit";
import { valuesOf } from "../forms/form-values";
import { placeErrors } from "../forms/place-errors";
import { readForm } from "../forms/read-form";
import { positiveIdOf, statusOf } from "../common";
import { type Status, configFieldsOf, renderNotFound, viewOf } from "./connections-render";
import { type SignedIn, formGuard, page, signedInForm, signedInPage, str } from "../kit";

const MAX_NAME = 100;

/** Secrets are never required when editing: left empty, the saved value is kept. */
const editableFields = (platform: Platform) => configFieldsOf(platform).map((field) => (field.secret ? { ...field, required: false } : field));

/**
 * `/app/connections/<id>/edit`: name and settings through updateConnection. Secrets left empty are
 * sent back masked, which the service reads as "keep the stored value" (as PUT /v1/connections/{id}
 * does); the page never holds a secret. The status is kept: "Test" is what changes it.
 */
export const connectionEditPages = new Hono<AppEnv>()
  .get("/app/connections/:id/edit", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    const found = await ownedConnection(signedIn, c.req.param("id"));
    if (!found) return renderNotFound(c, signedIn);
    const { connection, platform } = found;
    const masked = (await presentConnection(connection, await signedIn.ctx.secrets())).config;
    const fields = editableFields(platform);
    return renderEdit(c, signedIn, connection, { fields, name: connection.name, values: valuesOf(fields, masked), errors: {} });
  })
  .post("/app/connections/:id/edit", formGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    const found = await ownedConnection(signedIn, c.req.param("id"));
    if (!found) return renderNotFound(c, signedIn);
    const { connection, platform } = found;
    const fields = editableFields(platform);
    const read = readForm(fields, form);
    const name = (str(form.name) ?? "").trim();
    const shown = { fields, name: name.slice(0, MAX_NAME), values: read.values };
    const errors = { ...read.errors };
    if (!name || name.length > MAX_NAME) errors.name = `Give the connection a name (at most ${MAX_NAME} characters).`;
    if (Object.keys(errors).length) return renderEdit(c, signedIn, connection, { ...shown, errors, error: "Some fields need attention; see below." }, 422);
    const masked = (await presentConnection(connection, await signedIn.ctx.secrets())).config;
    const config = { ...read.value };
    for (const field of fields) {
      if (field.secret && config[field.name] === undefined && masked[field.name] !== undefined) config[field.name] = masked[field.name];
    }
    try {
      await updateConnection(signedIn.ctx, connection.id, { name, status: connection.status, config });
      return c.redirect(`/app/connections/${connection.id}`, 303);
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      if (error.code === "not_found") return renderNotFound(c, signedIn);
      const placed = placeErrors(fields, error.errors ?? [], "config");
      return renderEdit(c, signedIn, connection, { ...shown, errors: placed.errors, error: [error.message, ...placed.unplaced].join(" ") }, statusOf(error));
    }
  });

/** The signed-in person's connection of that id, on a platform still known; else nothing (a 404). */
async function ownedConnection(signedIn: SignedIn, param: string | undefined): Promise<{ connection: Connection; platform: Platform } | undefined> {
  const id = positiveIdOf(param);
  if (!id) return undefined;
  try {
    const connection = await getConnection(signedIn.ctx, id);
    // A declared platform, or one of the person's custom platforms.
    const platform = await resolvePlatform(signedIn.ctx, connection.platform);
    // A connection made with OAuth has the settings of that kind (no pasted token).
    return platform ? { connection, platform: platformFor(platform, connection.authMode) } : undefined;
  } catch (error) {
    if (error instanceof HubError && error.code === "not_found") return undefined;
    throw error;
  }
}

async function renderEdit(
  c: Context<AppEnv>,
  signedIn: SignedIn,
  connection: Connection,
  props: Omit<EditConnectionProps, "email" | "csrf" | "connection">,
  status: Status = 200,
) {
  const view = await viewOf(connection, await signedIn.ctx.secrets(), signedIn.ctx);
  const csrf = await csrfToken(c, signedIn.ctx.actor.id);
  return page(c, <EditConnectionPage email={signedIn.email} csrf={csrf} connection={view} {...props} />, status);
}
