import type { Context } from "hono";
import { Hono } from "hono";
import type { AppEnv } from "../http/app-env";
import { page } from "./kit";
import { ErrorNote, Page } from "./layout";

/** `/app` has no page of its own: the dashboard's start is `/` (the overview, or the sign-in form). */
export const dashboardRoot = new Hono<AppEnv>().get("/app", (c) => c.redirect("/", 302)).get("/app/", (c) => c.redirect("/", 302));

/**
 * Whether a request that matched no route should get the dashboard's not-found page rather than a
 * problem+json: a browser (it accepts HTML) asking for a dashboard address. API paths never do.
 */
export function wantsPage(c: Context<AppEnv>): boolean {
  const path = new URL(c.req.url).pathname;
  return path.startsWith("/app/") && (c.req.header("Accept") ?? "").includes("text/html");
}

/** A dashboard address that does not exist: an HTML page with the way back to the start. */
export function renderPageNotFound(c: Context<AppEnv>) {
  return page(
    c,
    <Page title="Not found">
      <h1>Not found</h1>
      <ErrorNote message="There is no page at this address." />
      <p>
        <a href="/">Back to the start</a> · <a href="/app/workflows">Workflows</a>
      </p>
    </Page>,
    404,
  );
}
