import { Hono } from "hono";
import { HubError } from "../../core/errors";
import { RunFilters, listRuns } from "../../executions/list";
import type { AppEnv } from "../../http/app-env";
import { paginate } from "../../http/pagination";
import { messageOf } from "../common";
import { page, signedInPage } from "../kit";
import { RUNS_FORM_FIELDS, type RunsForm, RunsPage } from "./runs-page";

/** Runs per page: enough to scan, few enough to stay light on a phone. */
const PAGE_SIZE = 50;
const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * `/app/runs`: the person's runs across workflows through the same service and filters as
 * GET /v1/executions. Days from the form are UTC; "until" includes its day.
 */
export const runsPages = new Hono<AppEnv>().get("/app/runs", async (c) => {
  const signedIn = await signedInPage(c);
  if (!signedIn) return c.redirect("/", 303);
  const form = Object.fromEntries(RUNS_FORM_FIELDS.map((field) => [field, (c.req.query(field) ?? "").trim().slice(0, 200)])) as unknown as RunsForm;
  const cursor = c.req.query("cursor");
  const show = (props: { runs?: Awaited<ReturnType<typeof listRuns>>; nextCursor?: string | null; error?: string }, status: 200 | 400 = 200) =>
    page(
      c,
      <RunsPage
        email={signedIn.email}
        csrf={signedIn.csrf}
        form={form}
        runs={props.runs ?? []}
        nextCursor={props.nextCursor ?? null}
        paged={cursor !== undefined}
        error={props.error}
      />,
      status,
    );

  const dayStart = (day: string) => (DAY.test(day) && !Number.isNaN(Date.parse(`${day}T00:00:00Z`)) ? Date.parse(`${day}T00:00:00Z`) : undefined);
  const from = form.from ? dayStart(form.from) : undefined;
  const until = form.until ? dayStart(form.until) : undefined;
  if ((form.from && from === undefined) || (form.until && until === undefined)) return show({ error: "Give days as YYYY-MM-DD." }, 400);
  const parsed = RunFilters.safeParse({
    status: form.status || undefined,
    trigger: form.trigger || undefined,
    workflow_id: form.workflow_id || undefined,
    agent_id: form.agent_id || undefined,
    started_after: from === undefined ? undefined : new Date(from).toISOString(),
    started_before: until === undefined ? undefined : new Date(until + DAY_MS).toISOString(),
    q: form.q || undefined,
  });
  if (!parsed.success) return show({ error: `Check the filters: ${parsed.error.issues.map((issue) => issue.path.join(".")).join(", ")}.` }, 400);
  try {
    const rows = await listRuns(signedIn.ctx, parsed.data, PAGE_SIZE + 1, cursor);
    const { page: runs, nextCursor } = paginate(rows, PAGE_SIZE, (row) => ({ c: row.createdAt.getTime(), id: row.id }));
    return show({ runs, nextCursor });
  } catch (error) {
    if (error instanceof HubError && error.code === "validation_failed") return show({ error: messageOf(error) }, 400);
    throw error;
  }
});
