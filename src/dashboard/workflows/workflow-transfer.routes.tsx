import type { Context } from "hono";
import { Hono } from "hono";
import { csrfToken } from "../../auth/browser-session";
import { HubError } from "../../core/errors";
import { nestsDeeperThan } from "../../lib/json-depth";
import type { AppEnv } from "../../http/app-env";
import { BundleSchema } from "../../portability/bundle";
import { exportWorkflow } from "../../portability/export";
import { type ImportBody, importWorkflows } from "../../portability/import";
import { type SignedIn, largeFormGuard, page, signedInForm, signedInPage, str } from "../kit";
import { messageOf, positiveIdOf, statusOf } from "../common";
import { renderNotFound } from "./workflow-render";
import { type ImportedView, WorkflowImportPage } from "./workflow-import-page";

/**
 * A workflow's "Export" (the bundle of `GET /v1/workflows/{id}/export`, as a download) and the
 * import form (`POST /v1/workflows/import`): both through the portability services, as the API.
 * Mounted before the workflow pages, whose `/app/workflows/:id` would take "import" for an id.
 */
export const workflowTransferPages = new Hono<AppEnv>()
  .get("/app/workflows/import", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    return page(c, <WorkflowImportPage email={signedIn.email} csrf={signedIn.csrf} />);
  })
  .post("/app/workflows/import", largeFormGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    const file = form.file instanceof File && form.file.size > 0 ? await form.file.text() : undefined;
    return importFromForm(c, signedIn, file ?? str(form.document) ?? "", str(form.connections) ?? "");
  })
  .get("/app/workflows/:id/export", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    const id = positiveIdOf(c.req.param("id"));
    if (!id) return renderNotFound(c, signedIn, "workflow");
    try {
      const bundle = await exportWorkflow(signedIn.ctx, id);
      c.header("Content-Disposition", `attachment; filename="workflow-${id}.json"`);
      c.header("Cache-Control", "no-store");
      return c.body(JSON.stringify(bundle, null, 2), 200, { "Content-Type": "application/json; charset=utf-8" });
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      if (error.code === "not_found") return renderNotFound(c, signedIn, "workflow");
      return renderImportPage(c, signedIn, { error: `This workflow cannot be exported: ${messageOf(error)}` }, statusOf(error));
    }
  });

type PageExtras = Omit<Parameters<typeof WorkflowImportPage>[0], "email" | "csrf">;

async function renderImportPage(c: Context<AppEnv>, signedIn: SignedIn, extras: PageExtras, status: Parameters<typeof page>[2] = 200) {
  const csrf = await csrfToken(c, signedIn.ctx.actor.id);
  return page(c, <WorkflowImportPage email={signedIn.email} csrf={csrf} {...extras} />, status);
}

/** Reads the pasted or uploaded JSON, tells a hub bundle from an n8n export, and imports it. */
async function importFromForm(c: Context<AppEnv>, signedIn: SignedIn, document: string, connectionsText: string) {
  const refuse = (error: string, problems?: PageExtras["problems"], status: Parameters<typeof page>[2] = 422) =>
    renderImportPage(c, signedIn, { document, connections: connectionsText, error, problems }, status);
  const parsed = parseJson(document);
  if (!parsed.ok) return refuse(document.trim() ? `The JSON does not parse: ${parsed.message}` : "Paste the JSON or choose a file.");
  // The API refuses such bodies before parsing them into schemas (limitNesting); the form does the same.
  if (nestsDeeperThan(parsed.value, 128)) return refuse("The JSON is nested too deeply to import.");
  const connections = connectionsText.trim() ? parseJson(connectionsText) : { ok: true as const, value: undefined };
  if (!connections.ok || !isConnectionMap(connections.value)) return refuse('Name connections as {"<platform>": <connection id>}, or leave it empty.');

  const body: ImportBody = { connections: connections.value };
  if (isRecord(parsed.value) && "format" in parsed.value) {
    const bundle = BundleSchema.safeParse(parsed.value);
    if (!bundle.success) {
      const problems = bundle.error.issues.map((issue) => ({ field: ["bundle", ...issue.path].join("."), message: issue.message }));
      return refuse("This is not a workflow bundle this hub can read.", problems);
    }
    body.bundle = bundle.data;
  } else if (isN8nExport(parsed.value) || (Array.isArray(parsed.value) && parsed.value.length > 0 && parsed.value.every(isN8nExport))) {
    body.n8n = parsed.value;
  } else {
    return refuse("This is neither a workflow bundle (it has a format) nor an n8n workflow export (it has nodes) or a list of them.");
  }

  try {
    const result = await importWorkflows(signedIn.ctx, body);
    const imported: ImportedView = { workflows: [result.workflow, ...result.children], warnings: result.warnings };
    return renderImportPage(c, signedIn, { imported });
  } catch (error) {
    if (!(error instanceof HubError)) throw error;
    return refuse(
      error.message,
      error.errors?.map((e) => ({ field: e.field, message: e.message })),
      statusOf(error),
    );
  }
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);
/** An n8n workflow export has its nodes; a list of them is imported together. */
const isN8nExport = (value: unknown) => isRecord(value) && Array.isArray(value.nodes);

function isConnectionMap(value: unknown): value is Record<string, number> | undefined {
  if (value === undefined) return true;
  return isRecord(value) && Object.keys(value).length <= 100 && Object.values(value).every((id) => Number.isInteger(id) && (id as number) > 0);
}
