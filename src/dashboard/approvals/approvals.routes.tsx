import type { Context } from "hono";
import { Hono } from "hono";
import { decideApproval, getApproval, listApprovals } from "../../approvals/service";
import type { ApprovalView } from "../../approvals/present";
import { csrfToken } from "../../auth/browser-session";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { type RefusalStatus, messageOf, parseJsonObject, renderNotFound, statusOf } from "../common";
import { type SignedIn, formGuard, page, renderError, signedInForm, signedInPage, str } from "../kit";
import { ApprovalPage, type ApprovalPageProps, type DecisionValues, MAX_NOTE } from "./approval-page";
import { ApprovalsListPage, LISTS, type ListName } from "./approvals-list";

/** Approvals per page: enough to scan, few enough to stay light on a phone. */
const PAGE_SIZE = 50;

/** Approval ids are made by the hub (`apr_…`, at most 64 characters as the API takes them); anything else names none. */
const isApprovalId = (text: string) => /^[A-Za-z0-9_-]{1,64}$/.test(text);

/**
 * `/app/approvals`: the person's approvals (pending first, a tab per status) and one approval's
 * page, where it is decided as `POST /v1/approvals/{id}/decision` decides it (decided by
 * `user:<id>`). Another person's approval is not found, as in the API.
 */
export const approvalsPages = new Hono<AppEnv>()
  .get("/app/approvals", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    const list = (c.req.query("status") ?? "pending") as ListName;
    if (!LISTS.includes(list)) return renderError(c, "There is no list of approvals with that status.", 400);
    const cursor = c.req.query("cursor");
    let found: Awaited<ReturnType<typeof listApprovals>>;
    try {
      found = await listApprovals(signedIn.ctx, { limit: PAGE_SIZE, cursor, ...(list === "all" ? {} : { status: list }) });
    } catch (error) {
      if (error instanceof HubError && error.code === "validation_failed") return renderError(c, "That page of approvals does not exist.", 400);
      throw error;
    }
    return page(
      c,
      <ApprovalsListPage
        email={signedIn.email}
        csrf={signedIn.csrf}
        list={list}
        approvals={found.data}
        nextCursor={found.next_cursor}
        paged={cursor !== undefined}
      />,
    );
  })
  .get("/app/approvals/:id", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    return renderApproval(c, signedIn, c.req.param("id"), { decided: c.req.query("decided") === "1" });
  })
  .post("/app/approvals/:id", formGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    const id = c.req.param("id") ?? "";
    const step = str(form.step);
    if (step !== "approve" && step !== "deny") return renderError(c, "Unknown form action.", 400);
    const values: DecisionValues = { arguments: str(form.arguments) ?? "", note: (str(form.note) ?? "").trim() };
    const approval = await ownedApproval(signedIn, id);
    if (!approval) return approvalNotFound(c, signedIn);
    const refuse = (error: string, status: RefusalStatus) => renderApproval(c, signedIn, id, { values, error }, status);
    if (values.note.length > MAX_NOTE) return refuse(`The note is longer than ${MAX_NOTE} characters.`, 422);
    const edited = step === "approve" ? editedArguments(values.arguments, approval) : { ok: true as const, value: undefined };
    if (!edited.ok) return refuse(edited.message, 422);
    try {
      await decideApproval(
        signedIn.ctx,
        id,
        { decision: step, ...(edited.value ? { arguments: edited.value } : {}), ...(values.note ? { note: values.note } : {}) },
        `user:${signedIn.ctx.actor.id}`,
      );
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      // The approval is the person's (read above): a not_found here is the tool, gone since it was asked for.
      return refuse(messageOf(error), error.code === "not_found" ? 422 : statusOf(error));
    }
    // Post/redirect/get: a reload shows the decision and never posts it again.
    return c.redirect(`/app/approvals/${encodeURIComponent(id)}?decided=1`, 303);
  });

/**
 * The arguments to approve with: undefined when they are the call's own (approved as asked, as
 * the API's decision without `arguments`), the edited object otherwise, or why they cannot be used.
 */
function editedArguments(typed: string, approval: ApprovalView): { ok: true; value: Record<string, unknown> | undefined } | { ok: false; message: string } {
  if (!typed.trim()) return { ok: false, message: "The arguments are empty: give a JSON object ({} for none)." };
  const parsed = parseJsonObject(typed, "The arguments", '{"channel": "#ops"}');
  if (!parsed.ok) return parsed;
  return { ok: true, value: JSON.stringify(parsed.value) === JSON.stringify(approval.arguments) ? undefined : parsed.value };
}

async function ownedApproval(signedIn: SignedIn, id: string): Promise<ApprovalView | undefined> {
  if (!isApprovalId(id)) return undefined;
  try {
    return await getApproval(signedIn.ctx, id);
  } catch (error) {
    if (error instanceof HubError && error.code === "not_found") return undefined;
    throw error;
  }
}

async function renderApproval(
  c: Context<AppEnv>,
  signedIn: SignedIn,
  id: string,
  extra: Pick<ApprovalPageProps, "values" | "decided" | "error">,
  status: 200 | RefusalStatus = 200,
) {
  const approval = await ownedApproval(signedIn, id);
  if (!approval) return approvalNotFound(c, signedIn);
  const csrf = await csrfToken(c, signedIn.ctx.actor.id);
  return page(c, <ApprovalPage email={signedIn.email} csrf={csrf} approval={approval} {...extra} />, status);
}

const approvalNotFound = (c: Context<AppEnv>, signedIn: SignedIn) =>
  renderNotFound(c, signedIn, "You have no approval with that id.", { href: "/app/approvals", label: "Back to approvals" });
