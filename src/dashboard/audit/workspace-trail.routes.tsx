import { Hono } from "hono";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { readAudit } from "../../workspaces/audit";
import { getWorkspace } from "../../workspaces/service";
import { positiveIdOf, renderNotFound } from "../common";
import { page, renderError, signedInPage } from "../kit";
import { WorkspaceTrailPage } from "./workspace-trail";

/**
 * `/app/workspaces/{id}/audit`: the workspace's trail through readAudit, as
 * `GET /v1/workspaces/{id}/audit` reads it: any member, newest first; "Older entries" carries the
 * API's cursor. A non-member gets the not-found page.
 */
export const workspaceTrailPages = new Hono<AppEnv>().get("/app/workspaces/:id/audit", async (c) => {
  const signedIn = await signedInPage(c);
  if (!signedIn) return c.redirect("/", 303);
  const cursorText = c.req.query("cursor");
  const cursor = positiveIdOf(cursorText);
  if (cursorText !== undefined && cursor === undefined) return renderError(c, "That page of the audit trail does not exist.", 400);
  let workspace: Awaited<ReturnType<typeof getWorkspace>>;
  try {
    workspace = await getWorkspace(signedIn.ctx, c.req.param("id") ?? "");
  } catch (error) {
    if (!(error instanceof HubError) || error.code !== "not_found") throw error;
    return renderNotFound(c, signedIn, error.message, { href: "/app/workspaces", label: "Back to your workspaces" });
  }
  const trail = await readAudit(signedIn.ctx.db, workspace.id, cursor);
  return page(c, <WorkspaceTrailPage email={signedIn.email} csrf={signedIn.csrf} workspace={workspace} trail={trail} paged={cursorText !== undefined} />);
});
