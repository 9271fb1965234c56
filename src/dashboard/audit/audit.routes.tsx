import { Hono } from "hono";
import type { AppEnv } from "../../http/app-env";
import { listAudit, presentAudit } from "../../tools/audit";
import { AuditPage } from "./audit";
import { workspaceTrailPages } from "./workspace-trail.routes";
import { positiveIdOf } from "../common";
import { page, renderError, signedInPage } from "../kit";

/** Entries per page: enough to scan, few enough to stay light on a phone. */
const PAGE_SIZE = 50;

/**
 * `/app/audit`: the person's tool calls through listAudit (their own only), newest first.
 * "Older entries" continues before the last id shown (`?before=<id>`), as the API's cursor does.
 */
export const auditPages = new Hono<AppEnv>()
  .get("/app/audit", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    const beforeText = c.req.query("before");
    const before = positiveIdOf(beforeText);
    if (beforeText !== undefined && before === undefined) return renderError(c, "That page of the audit log does not exist.", 400);
    // One row more than shown says whether older entries remain.
    const rows = await listAudit(signedIn.ctx, PAGE_SIZE + 1, before);
    const entries = rows.slice(0, PAGE_SIZE).map(presentAudit);
    const olderBefore = rows.length > PAGE_SIZE ? entries[entries.length - 1]?.id : undefined;
    return page(
      c,
      <AuditPage
        email={signedIn.email}
        csrf={signedIn.csrf}
        workspaceId={signedIn.ctx.workspace.id}
        entries={entries}
        olderBefore={olderBefore}
        paged={beforeText !== undefined}
      />,
    );
  })
  .route("/", workspaceTrailPages);
