import type { Context } from "hono";
import { Hono } from "hono";
import { csrfToken } from "../../auth/browser-session";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { listTemplates } from "../../templates/service";
import { useTemplate } from "../../templates/use-template";
import { type SignedIn, formGuard, page, renderError, signedInContext, signedInForm, str } from "../kit";
import { type TemplateFilterValues, TemplatesPage } from "./templates";

/** The REST API's bound on a filter value. */
const MAX_FILTER = 200;
const MAX_TEMPLATE_ID = 100;

/** `/app/templates`: browse and filter the marketplace, and copy a template into a new workflow. */
export const templatesPages = new Hono<AppEnv>()
  .get("/app/templates", async (c) => {
    const signedIn = await signedInContext(c);
    if (!signedIn) return c.redirect("/", 303);
    const filters: TemplateFilterValues = {
      search: (c.req.query("search") ?? "").trim().slice(0, MAX_FILTER),
      category: (c.req.query("category") ?? "").trim().slice(0, MAX_FILTER),
      featuredOnly: Boolean(c.req.query("featured")),
    };
    return renderTemplates(c, signedIn, filters);
  })
  .post("/app/templates", formGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    if (str(form.step) !== "use") return renderError(c, "Unknown form action.", 400);
    const templateId = str(form.template_id) ?? "";
    const noFilters = { search: "", category: "", featuredOnly: false };
    if (!templateId || templateId.length > MAX_TEMPLATE_ID) return renderTemplates(c, signedIn, noFilters, "Choose a template to use.", 422);
    try {
      const { workflow } = await useTemplate(signedIn.ctx, templateId);
      return c.redirect(`/app/workflows/${workflow.id}`, 303);
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      // A missing template is 404; a damaged one or a full account is 409, as in the REST API.
      const status = error.code === "not_found" ? 404 : error.code === "conflict" || error.code === "quota_exceeded" ? 409 : 422;
      const detail = error.errors?.map((e) => e.message).join(" ") ?? "";
      return renderTemplates(c, signedIn, noFilters, `${error.message} ${detail}`.trim(), status);
    }
  });

async function renderTemplates(c: Context<AppEnv>, signedIn: SignedIn, filters: TemplateFilterValues, error?: string, status: 200 | 404 | 409 | 422 = 200) {
  const { db } = signedIn.ctx;
  // The filtered list and, for the category menu, every category present (the same service both times).
  const [matching, all] = await Promise.all([listTemplates(db, { search: filters.search || null, category: filters.category || null }), listTemplates(db, {})]);
  const categories = [...new Set(all.map((t) => t.category))].sort((a, b) => a.localeCompare(b));
  const templates = filters.featuredOnly ? matching.filter((t) => t.featured) : matching;
  return page(
    c,
    <TemplatesPage
      email={signedIn.email}
      csrf={await csrfToken(c, signedIn.ctx.user.id)}
      templates={templates}
      categories={categories}
      filters={filters}
      error={error}
    />,
    status,
  );
}
