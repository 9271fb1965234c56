import type { Context } from "hono";
import { csrfToken } from "../../auth/browser-session";
import { presentOwnedAgent } from "../../agents/service";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { listWorkflowExecutions } from "../../workflows/executions";
import { listWorkflows } from "../../workflows/service";
import { type DeployValues, DeployAgentPage } from "./agent-deploy";
import { AgentPage, type AgentPageProps } from "./agent-page";
import type { RunRow } from "./agent-runs";
import { type ParsedSchedule, nextRuns, parseSchedule, scheduleFieldsOf } from "./agent-schedule";
import type { SchedulePreview } from "./agent-schedule-form";
import type { SignedIn } from "../kit";
import { page } from "../kit";
import { ErrorNote, Page } from "../layout";

type Status = 200 | 201 | 404 | 409 | 422 | 429;

/** How many of the workflow's latest executions are read to find the agent's own, and how many are shown. */
const EXECUTIONS_READ = 200;
const RUNS_SHOWN = 30;
const WORKFLOWS_OFFERED = 200;

/** The status a service's refusal is shown with. */
export function statusOf(error: HubError): Status {
  if (error.code === "not_found") return 404;
  if (error.code === "conflict" || error.code === "quota_exceeded") return 409;
  if (error.code === "rate_limited") return 429;
  return 422;
}

/** A service's refusal in one sentence, with the fields it names. */
export function messageOf(error: HubError): string {
  const detail = error.errors?.map((e) => e.message).join(" ") ?? "";
  return `${error.message} ${detail}`.trim();
}

/** "Preview schedule": the next run times, or why the schedule is wrong. */
export function previewOf(parsed: ParsedSchedule, now = new Date()): SchedulePreview {
  if (!parsed.ok) return { runs: [], timeZone: "UTC", error: { field: parsed.field, message: parsed.message } };
  const zone = parsed.config?.type === "cron" ? parsed.config.timezone : "UTC";
  return { runs: nextRuns(parsed.config, now), timeZone: zone };
}

export async function renderDeploy(
  c: Context<AppEnv>,
  signedIn: SignedIn,
  values: DeployValues,
  extra: { preview?: SchedulePreview; error?: string } = {},
  status: Status = 200,
) {
  const workflows = await listWorkflows(signedIn.ctx, WORKFLOWS_OFFERED);
  return page(
    c,
    <DeployAgentPage
      email={signedIn.email}
      csrf={await csrfToken(c, signedIn.ctx.user.id)}
      workflows={workflows.map((w) => ({ id: w.id, name: w.name, status: w.status }))}
      values={values}
      minInterval={signedIn.ctx.config.quotas.minIntervalSeconds}
      {...extra}
    />,
    status,
  );
}

type AgentExtras = Partial<Pick<AgentPageProps, "preview" | "error" | "webhookSecret" | "started" | "scheduleFields">>;

/** The agent's page, or the not-found page when the agent is not the person's. */
export async function renderAgent(c: Context<AppEnv>, signedIn: SignedIn, agentId: string, extra: AgentExtras = {}, status: Status = 200) {
  const { ctx } = signedIn;
  let agent: AgentPageProps["agent"];
  try {
    agent = await presentOwnedAgent(ctx, agentId);
  } catch (error) {
    if (error instanceof HubError && error.code === "not_found") return renderAgentNotFound(c, signedIn);
    throw error;
  }
  // There is no per-agent listing: the agent's runs are found among its workflow's latest ones.
  const executions = await listWorkflowExecutions(ctx, agent.workflow_id, EXECUTIONS_READ, undefined);
  const runs: RunRow[] = executions
    .filter((run) => run.agentId === agent.agent_id)
    .slice(0, RUNS_SHOWN)
    .map((run) => ({
      id: run.id,
      status: run.status,
      createdAt: run.createdAt,
      startedAt: run.startedAt,
      durationMs: run.startedAt && run.finishedAt ? run.finishedAt.getTime() - run.startedAt.getTime() : null,
    }));
  const current = parseSchedule(scheduleFieldsOf(agent.schedule), 0);
  const config = current.ok ? current.config : null;
  const nextDue = agent.monitoring.next_run_at ? new Date(agent.monitoring.next_run_at) : null;
  return page(
    c,
    <AgentPage
      email={signedIn.email}
      csrf={await csrfToken(c, ctx.user.id)}
      agent={agent}
      runs={runs}
      upcoming={nextRuns(config, new Date(), nextDue)}
      scheduleZone={config?.type === "cron" ? config.timezone : "UTC"}
      minInterval={ctx.config.quotas.minIntervalSeconds}
      webhookUrl={`${new URL(c.req.url).origin}/v1/hooks/agents/${agent.agent_id}`}
      {...extra}
      scheduleFields={extra.scheduleFields ?? scheduleFieldsOf(agent.schedule)}
    />,
    status,
  );
}

export async function renderAgentNotFound(c: Context<AppEnv>, signedIn: SignedIn) {
  return page(
    c,
    <Page title="Agent not found" email={signedIn.email} csrf={await csrfToken(c, signedIn.ctx.user.id)}>
      <h1>Agent not found</h1>
      <ErrorNote message="There is no agent of yours with this id. It may have been deleted." />
      <p>
        <a href="/app/agents">Back to agents</a>
      </p>
    </Page>,
    404,
  );
}
