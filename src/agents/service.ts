import type { ServiceContext } from "../core/context";
import { and, desc, eq, ne, sql } from "drizzle-orm";
import { delegatedContext, type Runtime } from "../core/context";
import type { Db } from "../db/client";
import { agents, workflows, type Agent } from "../db/schema";
import { insertWithinQuota } from "../db/quota";
import { HubError, notFound, validationFailed } from "../core/errors";
import { type RunOptions, startAndRun } from "../executions/start-and-run";
import type { ScheduleConfig } from "./automation-agent";
import { applyPoll, applySchedule } from "./schedules";
import { armDeployedAgent, armPolling, armSchedule, presentTrigger } from "./triggers";
import { NEVER_FIRES_MESSAGE, firstCronInstant } from "../lib/cron-time";
import { credentialRevocation } from "../auth/credential-status";
import { recordAlertEvent } from "../core/alert-events";
import { randomToken } from "../lib/crypto";
import { getOwnedWorkflow } from "../workflows/service";
import { agentRunMetrics } from "./metrics";
import { recordAgentEvent } from "./events";
import { providerSecretLabel } from "./secret-labels";
import { checkAgentConfig } from "./agent-config";
import { auditStatement } from "../workspaces/audit";

/** The agent acts with the credential that deployed it, for its owner. */
export function agentContext(runtime: Runtime, agent: Pick<Agent, "userId" | "credentialId">): ServiceContext {
  return delegatedContext(runtime, agent.userId, agent.credentialId);
}

/**
 * Deploys one of the caller's workflows as an agent, within MAX_AGENTS_PER_USER; the agent will
 * act with the caller's credential, and its trigger is armed in the same call (a `schedule`
 * trigger: its schedule). The webhook secret is returned once.
 */
export async function deployAgent(
  ctx: ServiceContext,
  input: { workflowId: number; config: Record<string, unknown> },
): Promise<{ agent: Agent; webhookSecret: string }> {
  const workflow = await getOwnedWorkflow(ctx, input.workflowId);
  await checkAgentConfig(ctx, input.config);
  const maxAgents = ctx.config.quotas.agentsPerUser;
  const held = eq(agents.userId, ctx.workspace.id);
  const full = () => new HubError("quota_exceeded", `An account can hold at most ${maxAgents} agents; delete one first.`);
  if ((await ctx.db.$count(agents, held)) >= maxAgents) throw full();
  const id = crypto.randomUUID();
  const webhookSecret = `whsec_${randomToken(32)}`;
  const sealed = await (await ctx.secrets()).seal(webhookSecret, `agent:${id}:webhook_secret`);
  const insert = ctx.db
    .insert(agents)
    .values({
      id,
      userId: ctx.workspace.id,
      workflowId: workflow.id,
      triggerType: workflow.triggerType,
      config: input.config,
      webhookSecret: sealed,
      credentialId: ctx.credential.id,
    })
    .returning();
  const audit = auditStatement(
    ctx,
    { action: "agent.created", target: { type: "agent", id }, detail: { workflow_id: workflow.id, workflow_name: workflow.name } },
    sql`EXISTS (SELECT 1 FROM ${agents} WHERE ${agents.id} = ${id})`,
  );
  const agent = await insertWithinQuota<Agent>(ctx.db, insert, agents, held, maxAgents, [audit]);
  if (!agent) throw full();
  return { agent: await armDeployedAgent(ctx, agent, workflow), webhookSecret };
}

/**
 * Why the agent cannot act on its own (a schedule or a webhook), or null if it can: an agent
 * acts with the credential that deployed it, so a revoked API key or OAuth grant stops it. The
 * owner's alerts (DESIGN §6.5) hear of it once: every refusal then records this reason as the
 * agent's last_error, which the next check finds (a copy without it folds into the same alert).
 */
export async function agentStoppedReason(db: Db, agent: Pick<Agent, "id" | "userId" | "credentialId"> & { lastError?: string | null }): Promise<string | null> {
  const revoked = await credentialRevocation(db, agent.credentialId);
  if (!revoked) return null;
  const reason = `The agent is stopped: ${revoked} Deploy it again with a valid credential.`;
  if (agent.lastError !== reason) await recordAlertEvent(db, { userId: agent.userId, kind: "agent_stopped", subject: agent.id, summary: reason });
  return reason;
}

/** Records why a run the agent was due to start did not start, for `monitoring.last_error`. */
export async function recordAgentRefusal(db: Db, agentId: string, reason: string): Promise<void> {
  await db.update(agents).set({ lastError: reason, updatedAt: new Date() }).where(eq(agents.id, agentId));
}

/** The agent as the API shows it, with its workflow's name, and metrics from its recent runs. */
export async function presentOwnedAgent(ctx: ServiceContext, id: string, origin: string) {
  const row = await ctx.db
    .select({ agent: agents, workflowName: workflows.name, triggerConfig: workflows.triggerConfig })
    .from(agents)
    .innerJoin(workflows, eq(workflows.id, agents.workflowId))
    .where(and(eq(agents.id, id), eq(agents.userId, ctx.workspace.id)))
    .get();
  if (!row) throw notFound("Agent");
  const shown = presentAgent(row.agent, row.workflowName, row.triggerConfig, origin);
  return { ...shown, performance_metrics: { ...shown.performance_metrics, ...(await agentRunMetrics(ctx.db, row.agent.id)) } };
}

export async function getOwnedAgent(ctx: ServiceContext, id: string): Promise<Agent> {
  const row = await ctx.db
    .select()
    .from(agents)
    .where(and(eq(agents.id, id), eq(agents.userId, ctx.workspace.id)))
    .get();
  if (!row) throw notFound("Agent");
  return row;
}

/**
 * Replaces the agent's agent_config (checked like at deploy). Its next runs and chat turns read
 * the new settings; a run already going keeps asking with what it read.
 */
export async function updateAgentConfig(ctx: ServiceContext, id: string, config: Record<string, unknown>): Promise<Agent> {
  const agent = await getOwnedAgent(ctx, id);
  await checkAgentConfig(ctx, config);
  const [[row]] = await ctx.db.batch([
    ctx.db
      .update(agents)
      .set({ config, updatedAt: new Date() })
      .where(and(eq(agents.id, id), eq(agents.userId, ctx.workspace.id)))
      .returning(),
    agentUpdated(ctx, agent, ["agent_config"]),
  ]);
  if (!row) throw notFound("Agent");
  return row;
}

/** Pauses or resumes the agent, and its schedule and polling with it (see armSchedule, armPolling). */
export async function setAgentStatus(ctx: ServiceContext, id: string, status: Agent["status"]): Promise<Agent> {
  const mine = and(eq(agents.id, id), eq(agents.userId, ctx.workspace.id));
  // Recorded before the update, and only if the status changes (pausing a paused agent changes nothing).
  const audit = auditStatement(
    ctx,
    { action: "agent.updated", target: { type: "agent", id }, detail: { fields: ["status"], status } },
    sql`EXISTS (SELECT 1 FROM ${agents} WHERE ${and(mine, ne(agents.status, status))})`,
  );
  const [, [row]] = await ctx.db.batch([audit, ctx.db.update(agents).set({ status, updatedAt: new Date() }).where(mine).returning()]);
  if (!row) throw notFound("Agent");
  const scheduled = row.schedule ? await armSchedule(ctx, row, row.schedule as ScheduleConfig, row.triggerType) : row;
  return armPolling(ctx, scheduled, await getOwnedWorkflow(ctx, row.workflowId));
}

/**
 * Gives the agent a schedule (null: none). The agent's Durable Object keeps exactly one schedule;
 * the row mirrors it for listing and for the cron backstop. Intervals below MIN_INTERVAL_SECONDS
 * and cron expressions that never fire are refused.
 */
export async function scheduleAgent(ctx: ServiceContext, id: string, config: ScheduleConfig | null): Promise<Agent> {
  const agent = await getOwnedAgent(ctx, id);
  const floor = ctx.config.quotas.minIntervalSeconds;
  if (config?.type === "interval" && config.interval_seconds < floor) {
    throw validationFailed([{ location: "body", field: "schedule_config.interval_seconds", message: `Must be at least ${floor} seconds on this deployment.` }]);
  }
  // Checked before the agent's object is asked, which would otherwise fail after dropping the old schedule.
  if (config?.type === "cron" && !firstCronInstant(config.cron_expression, config.timezone)) {
    throw validationFailed([{ location: "body", field: "schedule_config.cron_expression", message: NEVER_FIRES_MESSAGE }]);
  }
  return armSchedule(ctx, agent, config, config ? "schedule" : "manual", agentUpdated(ctx, agent, ["schedule"]));
}

/** The record of a change to one of the caller's agents, for the batch right after its update. */
function agentUpdated(ctx: ServiceContext, agent: Pick<Agent, "id" | "workflowId">, fields: string[]) {
  return auditStatement(
    ctx,
    { action: "agent.updated", target: { type: "agent", id: agent.id }, detail: { workflow_id: agent.workflowId, fields } },
    sql`changes() = 1`,
  );
}

/** Deletes the agent and its schedule. */
export async function removeAgent(ctx: ServiceContext, id: string): Promise<void> {
  const agent = await getOwnedAgent(ctx, id);
  await applySchedule(ctx.bindings, agent.id, null);
  if (agent.nextPollAt || agent.triggerType === "poll") await applyPoll(ctx.bindings, agent.id, null, true);
  await deleteAgent(ctx, agent);
}

/** Runs the agent's workflow now. Run by hand, the agent acts with the caller's own (live) credential. */
export async function runAgentNow(ctx: ServiceContext, id: string, input: Record<string, unknown>, options: RunOptions = {}) {
  const agent = await getOwnedAgent(ctx, id);
  if (agent.status === "paused") throw new HubError("conflict", "The agent is paused.");
  // The workflow is read by the run's own insert (ownership and status included).
  const started = await startAndRun(ctx, agent.workflowId, { input, agentId: agent.id }, options);
  // Logged after the answer: a run started by hand does not wait for its log entry.
  ctx.waitUntil(
    recordAgentEvent(ctx.db, {
      agentId: agent.id,
      source: "manual",
      outcome: started.replayed ? "duplicate" : "started",
      executionId: started.execution.id,
    }).catch(() => undefined),
  );
  return started;
}

async function deleteAgent(ctx: ServiceContext, agent: Agent): Promise<void> {
  const [deleted] = await ctx.db.batch([
    ctx.db
      .delete(agents)
      .where(and(eq(agents.id, agent.id), eq(agents.userId, ctx.workspace.id)))
      .returning({ id: agents.id }),
    auditStatement(ctx, { action: "agent.deleted", target: { type: "agent", id: agent.id }, detail: { workflow_id: agent.workflowId } }, sql`changes() = 1`),
  ]);
  if (deleted.length === 0) throw notFound("Agent");
}

export function listAgents(ctx: ServiceContext) {
  return ctx.db
    .select({ agent: agents, workflowName: workflows.name, triggerConfig: workflows.triggerConfig })
    .from(agents)
    .innerJoin(workflows, eq(workflows.id, agents.workflowId))
    .where(eq(agents.userId, ctx.workspace.id))
    .orderBy(desc(agents.createdAt))
    .limit(500)
    .all();
}

/** `origin` (the hub's, as the caller reached it) makes `trigger.webhook_url` absolute. */
export function presentAgent(agent: Agent, workflowName: string, triggerConfig: Record<string, unknown>, origin: string) {
  const rate = agent.executionCount ? Math.round((agent.successCount / agent.executionCount) * 10_000) / 100 : 0;
  return {
    agent_id: agent.id,
    workflow_id: agent.workflowId,
    workflow_name: workflowName,
    status: agent.status,
    trigger_type: agent.triggerType,
    trigger: presentTrigger(agent, triggerConfig, origin),
    schedule: agent.schedule ?? null,
    agent_config: agent.config,
    monitoring: {
      execution_count: agent.executionCount,
      success_count: agent.successCount,
      failure_count: agent.failureCount,
      success_rate: rate,
      last_error: agent.lastError,
      last_run_at: agent.lastRunAt?.toISOString() ?? null,
      next_run_at: agent.nextRunAt?.toISOString() ?? null,
    },
    performance_metrics: {
      average_duration_ms: agent.executionCount ? Math.round(agent.totalDurationMs / agent.executionCount) : null,
      last_duration_ms: agent.lastDurationMs,
    },
    created_at: agent.createdAt.toISOString(),
    updated_at: agent.updatedAt.toISOString(),
  };
}

/**
 * Sets the provider's signing secret the agent's webhook checks (Stripe's `whsec_…`, Slack's
 * signing secret, a token…), sealed for this agent; it is never returned.
 */
export async function setProviderSecret(ctx: ServiceContext, id: string, secret: string): Promise<void> {
  // Checked here, whatever the door: a short token could be guessed, and a long one is not a secret.
  if (secret.length < 16 || secret.length > 1000) {
    throw validationFailed([{ location: "body", field: "secret", message: "16 to 1,000 characters." }]);
  }
  const agent = await getOwnedAgent(ctx, id);
  const sealed = await (await ctx.secrets()).seal(secret, providerSecretLabel(agent.id));
  await ctx.db.batch([
    ctx.db
      .update(agents)
      .set({ providerSecret: sealed, updatedAt: new Date() })
      .where(and(eq(agents.id, agent.id), eq(agents.userId, ctx.workspace.id))),
    agentUpdated(ctx, agent, ["provider_secret"]),
  ]);
}
