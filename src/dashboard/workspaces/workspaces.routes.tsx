import type { Context } from "hono";
import { Hono } from "hono";
import { csrfToken } from "../../auth/browser-session";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { actingWorkspace } from "../../workspaces/resolve";
import { WorkspaceChange } from "../../workspaces/schemas";
import { createWorkspace, listWorkspaces } from "../../workspaces/service";
import { type RefusalStatus, messageOf, renderNotFound, statusOf } from "../common";
import { type SignedIn, formGuard, page, renderError, signedInForm, signedInPage, str } from "../kit";
import { rememberWorkspace } from "../workspace-choice";
import { membersPages } from "./members.routes";
import { WorkspacesPage } from "./workspaces-page";

/**
 * Where a switch returns to: the same section of the dashboard (a workflow of the workspace left
 * behind is not in the new one), or the new workspace's members or trail page. Only paths of
 * this dashboard, so the form cannot send anyone elsewhere.
 */
export function sectionAfterSwitch(back: string | undefined, workspaceId: number): string {
  const workspacePage = /^\/app\/workspaces\/\d+\/(members|audit)$/.exec(back ?? "");
  if (workspacePage) return `/app/workspaces/${workspaceId}/${workspacePage[1]}`;
  return /^\/app\/[a-z-]+/.exec(back ?? "")?.[0] ?? "/";
}

/**
 * The workspace switcher's form (`POST /app/workspace`), the list of the person's workspaces and
 * creating one (`/app/workspaces`), and each workspace's members page. All are about the person
 * (which workspaces they see and make), so they need no role in the current workspace.
 */
export const workspacesPages = new Hono<AppEnv>()
  .post("/app/workspace", formGuard, async (c) => {
    const posted = await signedInForm(c, "person");
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    try {
      // The same rule as the Hub-Workspace header: a member's workspace, else 404.
      const workspace = await actingWorkspace(c.get("db"), { userId: signedIn.ctx.actor.id, workspaceId: null }, str(form.workspace_id) ?? "");
      rememberWorkspace(c, workspace);
      return c.redirect(sectionAfterSwitch(str(form.back), workspace.id), 303);
    } catch (error) {
      if (!(error instanceof HubError) || error.code !== "not_found") throw error;
      return renderNotFound(c, signedIn, error.message, { href: "/app/workspaces", label: "Back to your workspaces" });
    }
  })
  .get("/app/workspaces", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    return renderWorkspaces(c, signedIn);
  })
  .post("/app/workspaces", formGuard, async (c) => {
    const posted = await signedInForm(c, "person");
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    if (str(form.step) !== "create") return renderError(c, "Unknown form action.", 400);
    const name = str(form.name) ?? "";
    const parsed = WorkspaceChange.safeParse({ name });
    if (!parsed.success) return renderWorkspaces(c, signedIn, { name, error: "Give the workspace a name (at most 100 characters)." }, 422);
    try {
      const created = await createWorkspace(signedIn.ctx, parsed.data);
      // The new workspace is shown at once, on its members page, to add the team.
      rememberWorkspace(c, { id: created.id, role: created.role, personal: false });
      return c.redirect(`/app/workspaces/${created.id}/members`, 303);
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      return renderWorkspaces(c, signedIn, { name, error: messageOf(error) }, statusOf(error));
    }
  })
  .route("/", membersPages);

async function renderWorkspaces(c: Context<AppEnv>, signedIn: SignedIn, extra: { error?: string; name?: string } = {}, status: 200 | RefusalStatus = 200) {
  const [workspaces, csrf] = await Promise.all([listWorkspaces(signedIn.ctx), csrfToken(c, signedIn.ctx.actor.id)]);
  return page(c, <WorkspacesPage email={signedIn.email} csrf={csrf} workspaces={workspaces} current={signedIn.ctx.workspace.id} {...extra} />, status);
}
