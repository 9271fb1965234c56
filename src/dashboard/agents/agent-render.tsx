import type { Context } from "hono";
import { csrfToken } from "../../auth/browser-session";
import { listAgentEvents } from "../../agents/events";
import { presentOwnedAgent } from "../../agents/service";
import type { ServiceContext } from "../../core/context";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { getOwnedExecution, listWorkflowExecutions } from "../../executions/present";
import { getOwnedWorkflow, listWorkflowSummaries } from "../../workflows/service";
import { type RefusalStatus, isExecutionId, positiveIdOf, renderNotFound } from "../common";
import { type DeployValues, DeployAgentPage, type WorkflowChoice } from "./agent-deploy";
import { AgentPage, type AgentPageProps } from "./agent-page";
import type { RunRow } from "./agent-runs";
import { triggerDetailsOf } from "./agent-trigger-details";
import { type ParsedSchedule, nextRuns, parseSchedule, scheduleFieldsOf } from "./agent-schedule";
import type { SchedulePreview } from "./agent-schedule-form";
import type { SignedIn } from "../kit";
import { page } from "../kit";

type Status = 200 | RefusalStatus;

/** How many of the workflow's latest executions are read to find the agent's own, and how many are shown. */
const EXECUTIONS_READ = 200;
const RUNS_SHOWN = 30;
const WORKFLOWS_OFFERED = 200;
/** The newest events the agent's page shows; the events log has the rest. */
const EVENTS_SHOWN = 5;

/** "Preview schedule": the next run times, or why the schedule is wrong. */
export function previewOf(parsed: ParsedSchedule, now = new Date()): SchedulePreview {
  if (!parsed.ok) return { runs: [], timeZone: "UTC", error: { field: parsed.field, message: parsed.message } };
  const zone = parsed.config?.type === "cron" ? parsed.config.timezone : "UTC";
  return { runs: nextRuns(parsed.config, now), timeZone: zone };
}

/**
 * The deploy form. A workflow asked for by id (`?workflow_id=` from "Deploy as an agent", or the
 * one posted) is read on its own, so it is offered and selected even beyond the first
 * WORKFLOWS_OFFERED; one that is not the person's is said so (404 on the plain form), and nothing
 * is selected in its place.
 */
export async function renderDeploy(
  c: Context<AppEnv>,
  signedIn: SignedIn,
  values: DeployValues,
  extra: { preview?: SchedulePreview; error?: string } = {},
  status: Status = 200,
) {
  const { ctx } = signedIn;
  const workflows: WorkflowChoice[] = (await listWorkflowSummaries(ctx, WORKFLOWS_OFFERED)).map((w) => ({ id: w.id, name: w.name, status: w.status }));
  let error = extra.error;
  if (values.workflowId && !workflows.some((w) => String(w.id) === values.workflowId)) {
    const wanted = await ownedWorkflowChoice(ctx, values.workflowId);
    if (wanted) workflows.unshift(wanted);
    else {
      error ??= `There is no workflow of yours with the id "${values.workflowId}": choose one of your workflows.`;
      if (status === 200) status = 404;
    }
  }
  return page(
    c,
    <DeployAgentPage
      email={signedIn.email}
      csrf={await csrfToken(c, ctx.actor.id)}
      workflows={workflows}
      values={values}
      minInterval={ctx.config.quotas.minIntervalSeconds}
      preview={extra.preview}
      error={error}
    />,
    status,
  );
}

async function ownedWorkflowChoice(ctx: ServiceContext, idText: string): Promise<WorkflowChoice | undefined> {
  const id = positiveIdOf(idText);
  if (!id) return undefined;
  try {
    const workflow = await getOwnedWorkflow(ctx, id);
    return { id: workflow.id, name: workflow.name, status: workflow.status };
  } catch (error) {
    if (error instanceof HubError && error.code === "not_found") return undefined;
    throw error;
  }
}

type AgentExtras = Partial<
  Pick<AgentPageProps, "preview" | "error" | "webhookSecret" | "webhookSecretShown" | "started" | "scheduleFields" | "runInput" | "secretSaved" | "secretError">
>;

/** The agent's page, or the not-found page when the agent is not the person's. */
export async function renderAgent(c: Context<AppEnv>, signedIn: SignedIn, agentId: string, extra: AgentExtras = {}, status: Status = 200) {
  const { ctx } = signedIn;
  let agent: AgentPageProps["agent"];
  try {
    agent = await presentOwnedAgent(ctx, agentId, new URL(c.req.url).origin);
  } catch (error) {
    if (error instanceof HubError && error.code === "not_found") return renderAgentNotFound(c, signedIn);
    throw error;
  }
  const started = extra.started && (await isRunOf(ctx, extra.started, agent.agent_id)) ? extra.started : undefined;
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
  const [trigger, events] = await Promise.all([triggerDetailsOf(ctx, agent), listAgentEvents(ctx, agent.agent_id, { limit: EVENTS_SHOWN })]);
  const current = parseSchedule(scheduleFieldsOf(agent.schedule), 0);
  const config = current.ok ? current.config : null;
  const nextDue = agent.monitoring.next_run_at ? new Date(agent.monitoring.next_run_at) : null;
  return page(
    c,
    <AgentPage
      email={signedIn.email}
      csrf={await csrfToken(c, ctx.actor.id)}
      agent={agent}
      runs={runs}
      trigger={trigger}
      events={events.data}
      upcoming={nextRuns(config, new Date(), nextDue)}
      scheduleZone={config?.type === "cron" ? config.timezone : "UTC"}
      minInterval={ctx.config.quotas.minIntervalSeconds}
      webhookUrl={`${new URL(c.req.url).origin}/v1/hooks/agents/${agent.agent_id}`}
      {...extra}
      started={started}
      // "Saved" is said only when a secret is in fact set, so a crafted link cannot claim it.
      secretSaved={extra.secretSaved && trigger.signingSecretSet === true}
      scheduleFields={extra.scheduleFields ?? scheduleFieldsOf(agent.schedule)}
    />,
    status,
  );
}

/**
 * Whether `?started=` names a run of this agent that the person owns: only then is "Run started"
 * shown, so a crafted link cannot put someone else's id (or another agent's run) on the page.
 */
async function isRunOf(ctx: ServiceContext, executionId: string, agentId: string): Promise<boolean> {
  if (!isExecutionId(executionId)) return false;
  try {
    return (await getOwnedExecution(ctx, executionId)).agentId === agentId;
  } catch (error) {
    if (error instanceof HubError && error.code === "not_found") return false;
    throw error;
  }
}

export function renderAgentNotFound(c: Context<AppEnv>, signedIn: SignedIn) {
  return renderNotFound(c, signedIn, "There is no agent of yours with this id. It may have been deleted.", { href: "/app/agents", label: "Back to agents" });
}
