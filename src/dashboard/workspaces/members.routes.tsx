import type { Context } from "hono";
import { Hono } from "hono";
import { csrfToken } from "../../auth/browser-session";
import { HubError } from "../../core/errors";
import { ROLES } from "../../core/roles";
import type { AppEnv } from "../../http/app-env";
import { addMember, changeRole, listMembers, removeMember } from "../../workspaces/members";
import { MemberInvite } from "../../workspaces/schemas";
import { getWorkspace } from "../../workspaces/service";
import { type RefusalStatus, messageOf, renderNotFound, statusOf } from "../common";
import { type SignedIn, formGuard, page, renderError, signedInForm, signedInPage, str } from "../kit";
import { forgetWorkspace } from "../workspace-choice";
import { MembersPage, type MembersPageProps } from "./members-page";

const DONE: Record<string, string> = {
  invited: "Member added.",
  role: "Role changed.",
  removed: "Member removed.",
};

/**
 * `/app/workspaces/{id}/members`: the members services with the person's context, as
 * `/v1/workspaces/{id}/members` uses them. The forms name their workspace in the path, and the
 * services check the person's role there (admin to manage, anyone to leave), so the form check is
 * "person"; a refusal (403 role, 409 already a member, 422 no such account) is shown on the page.
 */
export const membersPages = new Hono<AppEnv>()
  .get("/app/workspaces/:id/members", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    return renderMembers(c, signedIn, c.req.param("id") ?? "", { done: DONE[c.req.query("done") ?? ""] });
  })
  .post("/app/workspaces/:id/members", formGuard, async (c) => {
    const posted = await signedInForm(c, "person");
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    const id = c.req.param("id") ?? "";
    const back = (done: string) => c.redirect(`/app/workspaces/${encodeURIComponent(id)}/members?done=${done}`, 303);
    const step = str(form.step);
    const invite = { email: (str(form.email) ?? "").trim(), role: str(form.role) ?? "" };
    try {
      if (step === "invite") {
        const parsed = MemberInvite.safeParse(invite);
        if (!parsed.success)
          return await renderMembers(c, signedIn, id, { invite, error: "Enter the person's email and a role: admin, editor or viewer." }, 422);
        await addMember(signedIn.ctx, id, parsed.data);
        return back("invited");
      }
      if (step === "role") {
        const role = ROLES.find((known) => known === invite.role);
        if (!role) return await renderMembers(c, signedIn, id, { error: "Choose a role: owner, admin, editor or viewer." }, 422);
        await changeRole(signedIn.ctx, id, str(form.user_id) ?? "", role);
        return back("role");
      }
      if (step === "remove") {
        await removeMember(signedIn.ctx, id, str(form.user_id) ?? "");
        return back("removed");
      }
      if (step === "leave") {
        await removeMember(signedIn.ctx, id, String(signedIn.ctx.actor.id));
        // Leaving the workspace the dashboard shows: back to the personal one.
        if (String(signedIn.ctx.workspace.id) === id) forgetWorkspace(c);
        return c.redirect("/app/workspaces", 303);
      }
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      return renderMembers(c, signedIn, id, { error: messageOf(error), invite: step === "invite" ? invite : undefined }, statusOf(error));
    }
    return renderError(c, "Unknown form action.", 400);
  });

async function renderMembers(
  c: Context<AppEnv>,
  signedIn: SignedIn,
  id: string,
  extra: Pick<MembersPageProps, "error" | "done" | "invite">,
  status: 200 | RefusalStatus = 200,
) {
  try {
    const [workspace, members, csrf] = await Promise.all([getWorkspace(signedIn.ctx, id), listMembers(signedIn.ctx, id), csrfToken(c, signedIn.ctx.actor.id)]);
    const props = { email: signedIn.email, csrf, workspace, members, me: signedIn.ctx.actor.id, ...extra };
    return page(c, <MembersPage {...props} />, status);
  } catch (error) {
    // Not a member (any more): the same answer as a workspace that does not exist.
    if (!(error instanceof HubError) || error.code !== "not_found") throw error;
    return renderNotFound(c, signedIn, error.message, { href: "/app/workspaces", label: "Back to your workspaces" });
  }
}
