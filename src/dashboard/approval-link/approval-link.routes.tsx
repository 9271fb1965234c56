import type { Context } from "hono";
import { Hono } from "hono";
import { decideByLink, liveLink } from "../../approvals/links";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { clientAddress, consumeRateLimits } from "../../http/rate-limit";
import { formGuard, page, renderError, str } from "../kit";
import { ApprovalDecidedPage, ApprovalLinkGonePage, ApprovalLinkPage } from "./approval-link-page";

const MAX_NOTE_CHARS = 2000;

/**
 * `/approvals/{token}`: the page an approval's email links to, for someone who may have no
 * account. The token is the only credential (128 bits to find the approval, 128 more for the
 * recipient). A GET shows the call and never decides (mail scanners open links); the form POSTs
 * here, from this origin only (formGuard). Unknown, used, expired and malformed links all answer
 * the same 404 page. Both count per client address, like sign-in attempts.
 */
export const approvalLinkPages = new Hono<AppEnv>()
  .get("/approvals/:token", async (c) => {
    const limited = await overAddressLimit(c);
    if (limited) return limited;
    const link = await liveLink(c.get("runtime"), c.req.param("token"));
    noIndex(c);
    if (!link) return page(c, <ApprovalLinkGonePage />, 404);
    return page(c, <ApprovalLinkPage link={link} action={c.req.path} />);
  })
  .post("/approvals/:token", formGuard, async (c) => {
    const limited = await overAddressLimit(c);
    if (limited) return limited;
    noIndex(c);
    const token = c.req.param("token") ?? "";
    const form = await c.req.parseBody();
    const decision = str(form.decision);
    const note = str(form.note)?.trim().slice(0, MAX_NOTE_CHARS) || undefined;
    if (decision !== "approve" && decision !== "deny") {
      const link = await liveLink(c.get("runtime"), token);
      if (!link) return page(c, <ApprovalLinkGonePage />, 404);
      return page(c, <ApprovalLinkPage link={link} action={c.req.path} error="Choose Approve or Deny." />, 400);
    }
    try {
      const decided = await decideByLink(c.get("runtime"), token, { decision, note });
      if (!decided) return page(c, <ApprovalLinkGonePage />, 404);
      return page(c, <ApprovalDecidedPage approval={decided} />);
    } catch (error) {
      // Decided elsewhere in the moment between reading the link and deciding.
      if (error instanceof HubError && error.code === "conflict")
        return page(c, <ApprovalLinkGonePage message="The call was decided a moment ago, elsewhere." />, 409);
      throw error;
    }
  });

/** The 429 page when this address opened or posted too many links this minute; undefined otherwise. */
async function overAddressLimit(c: Context<AppEnv>) {
  const runtime = c.get("runtime");
  const results = await consumeRateLimits(runtime.bindings.RATE_LIMITER, `addr:${clientAddress(c)}`, [
    { name: "approval-links", limit: runtime.config.limits.authAttemptsPerMinute },
  ]);
  const refused = results.find((result) => !result.allowed);
  if (!refused) return undefined;
  c.header("Retry-After", String(refused.resetSeconds));
  return renderError(c, `Too many requests: try again in ${refused.resetSeconds} s.`, 429);
}

/** A link's page is nobody's to index. */
const noIndex = (c: Context<AppEnv>) => c.header("X-Robots-Tag", "noindex, nofollow");
