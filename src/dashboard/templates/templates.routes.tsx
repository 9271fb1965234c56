import type { Context } from "hono";
import { Hono } from "hono";
import { csrfToken } from "../../auth/browser-session";
import type { AppEnv } from "../../http/app-env";
import { listTemplates } from "../../templates/service";
import type { RefusalStatus } from "../common";
import { type SignedIn, formGuard, page, renderError, signedInContext, signedInForm, str } from "../kit";
import { templateDeployPages } from "./template-deploy.routes";
import { type TemplateFilterValues, TemplatesPage } from "./templates";

/** The REST API's bound on a filter value. */
const MAX_FILTER = 200;
const MAX_TEMPLATE_ID = 100;

/**
 * `/app/templates`: browse and filter the marketplace; using a template (and deploying it) is
 * done on its own form, which asks for connections and variables first (template-deploy.routes).
 */
export const templatesPages = new Hono<AppEnv>()
  .route("/", templateDeployPages)
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
    // A page still showing the old "Use" button: the form that asks for connections and variables first.
    return c.redirect(`/app/templates/${encodeURIComponent(templateId)}/use`, 303);
  });

async function renderTemplates(c: Context<AppEnv>, signedIn: SignedIn, filters: TemplateFilterValues, error?: string, status: 200 | RefusalStatus = 200) {
  // The category menu offers the categories of the whole list; the cards are read with the filters
  // (as the API reads them), so a match is found wherever it would rank.
  const filtered = Boolean(filters.search || filters.category);
  const viewer = signedIn.ctx.workspace.id;
  const [all, matching] = await Promise.all([
    listTemplates(signedIn.ctx.db, {}, viewer),
    filtered ? listTemplates(signedIn.ctx.db, { search: filters.search, category: filters.category }, viewer) : undefined,
  ]);
  const categories = [...new Set(all.map((t) => t.category))].sort((a, b) => a.localeCompare(b));
  const templates = (matching ?? all).filter((t) => !filters.featuredOnly || t.featured);
  return page(
    c,
    <TemplatesPage
      email={signedIn.email}
      csrf={await csrfToken(c, signedIn.ctx.actor.id)}
      templates={templates}
      categories={categories}
      filters={filters}
      error={error}
    />,
    status,
  );
}
