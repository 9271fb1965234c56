import type { Context } from "hono";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { csrfToken, sameOriginPost } from "../../auth/browser-session";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { MAX_DOCUMENT_BYTES } from "../../connections/custom/openapi-import";
import { type CustomPlatformSummary, createCustomPlatform, deleteCustomPlatform, listCustomPlatforms } from "../../connections/custom/store";
import { type RefusalStatus, messageOf, parseJsonObject, statusOf } from "../common";
import { type SignedIn, page, renderError, signedInContext, signedInForm, str } from "../kit";
import { type CustomPlatformRow, PlatformsPage } from "./platforms-page";

/** The upload form carries a whole document: the API's 2 MiB, plus room for the form's other fields. */
const MAX_UPLOAD_BYTES = MAX_DOCUMENT_BYTES + 64 * 1024;

const uploadGuard = async (c: Context<AppEnv>, next: () => Promise<void>) => {
  if (!sameOriginPost(c)) return renderError(c, "Cross-site form submission refused.", 403);
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(c.req.header("Content-Type") ?? ""))
    return renderError(c, "Unsupported form encoding.", 415);
  return bodyLimit({ maxSize: MAX_UPLOAD_BYTES, onError: (inner) => renderError(inner, "The document is larger than 2 MiB.", 413) })(c, next);
};

/** `/app/platforms`: add custom platforms from OpenAPI documents, list and delete them. */
export const platformsPages = new Hono<AppEnv>()
  .get("/app/platforms", async (c) => {
    const signedIn = await signedInContext(c);
    if (!signedIn) return c.redirect("/", 303);
    return renderPlatforms(c, signedIn);
  })
  .post("/app/platforms", uploadGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    const step = str(form.step);
    try {
      if (step === "create") {
        const file = form.document_file;
        const text = file instanceof File && file.size > 0 ? await file.text() : (str(form.document) ?? "");
        if (!text.trim()) return renderPlatforms(c, signedIn, { error: "Choose a document file or paste the document." }, 422);
        const parsed = parseJsonObject(text, "The document", '{"openapi": "3.1.0", …}', { depthInBody: 1 });
        if (!parsed.ok) return renderPlatforms(c, signedIn, { error: parsed.message }, 422);
        const name = str(form.name)?.trim() || undefined;
        const row = await createCustomPlatform(signedIn.ctx, { openapi: parsed.value, name: name?.slice(0, 100) });
        return renderPlatforms(c, signedIn, { added: shown(row) }, 201);
      }
      if (step === "delete") {
        await deleteCustomPlatform(signedIn.ctx, str(form.platform_id) ?? "");
        return c.redirect("/app/platforms", 303);
      }
    } catch (error) {
      if (error instanceof HubError) return renderPlatforms(c, signedIn, { error: problemText(error) }, statusOf(error));
      throw error;
    }
    return renderError(c, "Unknown form action.", 400);
  });

/** The problem's message, with its first field problem where it names one (the server URL, an operation). */
function problemText(error: HubError): string {
  const first = error.errors?.[0];
  const message = messageOf(error);
  return first && first.field !== "openapi" && !message.includes(first.message) ? `${message} (${first.field}: ${first.message})` : message;
}

const shown = (row: CustomPlatformSummary): CustomPlatformRow => ({
  platform_id: row.uid,
  name: row.name,
  server_url: row.serverUrl,
  auth_kind: (row.auth as { kind: string }).kind,
  tool_count: row.toolCount,
  created_at: row.createdAt.toISOString(),
});

async function renderPlatforms(
  c: Context<AppEnv>,
  signedIn: SignedIn,
  extra: { added?: CustomPlatformRow; error?: string } = {},
  status: 200 | 201 | RefusalStatus = 200,
) {
  const rows = await listCustomPlatforms(signedIn.ctx, 100);
  return page(c, <PlatformsPage email={signedIn.email} csrf={await csrfToken(c, signedIn.ctx.actor.id)} platforms={rows.map(shown)} {...extra} />, status);
}
