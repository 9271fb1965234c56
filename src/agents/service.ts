import { and, count, desc, eq } from "drizzle-orm";
import type { Env } from "../env";
import type { Db } from "../db/client";
import { agents, workflows, type Agent } from "../db/schema";
import { HubError, notFound } from "../core/errors";
import { credentialRevocation } from "../auth/credential-status";
import { randomToken } from "../auth/crypto";
import { secretBoxFor } from "../connections/secrets";
import { getOwnedWorkflow } from "../workflows/service";

/** Deploys one of the caller's workflows as an agent; the webhook secret is returned once. */
export async function deployAgent(
  env: Env,
  db: Db,
  input: { userId: number; credentialId: string; workflowId: number; config: Record<string, unknown>; maxAgents: number },
): Promise<{ agent: Agent; webhookSecret: string }> {
  const workflow = await getOwnedWorkflow(db, input.userId, input.workflowId);
  const [held] = await db.select({ n: count() }).from(agents).where(eq(agents.userId, input.userId));
  if ((held?.n ?? 0) >= input.maxAgents) throw new HubError("quota_exceeded", `An account can hold at most ${input.maxAgents} agents; delete one first.`);
  const id = crypto.randomUUID();
  const webhookSecret = `whsec_${randomToken(32)}`;
  const sealed = await (await secretBoxFor(env)).seal(webhookSecret, `agent:${id}:webhook_secret`);
  const [agent] = await db
    .insert(agents)
    .values({
      id,
      userId: input.userId,
      workflowId: workflow.id,
      triggerType: workflow.triggerType,
      config: input.config,
      webhookSecret: sealed,
      credentialId: input.credentialId,
    })
    .returning();
  return { agent: agent!, webhookSecret };
}

/**
 * Why the agent cannot act on its own (a schedule or a webhook), or null if it can: an agent
 * acts with the credential that deployed it, so a revoked API key or OAuth grant stops it.
 */
export async function agentStoppedReason(db: Db, agent: Agent): Promise<string | null> {
  const revoked = await credentialRevocation(db, agent.credentialId);
  return revoked ? `The agent is stopped: ${revoked} Deploy it again with a valid credential.` : null;
}

/** Records why a run the agent was due to start did not start, for `monitoring.last_error`. */
export async function recordAgentRefusal(db: Db, agentId: string, reason: string): Promise<void> {
  await db.update(agents).set({ lastError: reason, updatedAt: new Date() }).where(eq(agents.id, agentId));
}

/** The agent as the API shows it, with its workflow's name, read in one query. */
export async function presentOwnedAgent(db: Db, userId: number, id: string) {
  const row = await db
    .select({ agent: agents, workflowName: workflows.name })
    .from(agents)
    .innerJoin(workflows, eq(workflows.id, agents.workflowId))
    .where(and(eq(agents.id, id), eq(agents.userId, userId)))
    .get();
  if (!row) throw notFound("Agent");
  return presentAgent(row.agent, row.workflowName);
}

export async function getOwnedAgent(db: Db, userId: number, id: string): Promise<Agent> {
  const row = await db
    .select()
    .from(agents)
    .where(and(eq(agents.id, id), eq(agents.userId, userId)))
    .get();
  if (!row) throw notFound("Agent");
  return row;
}

export async function setAgentStatus(db: Db, userId: number, id: string, status: Agent["status"]): Promise<Agent> {
  const [row] = await db
    .update(agents)
    .set({ status, updatedAt: new Date() })
    .where(and(eq(agents.id, id), eq(agents.userId, userId)))
    .returning();
  if (!row) throw notFound("Agent");
  return row;
}

export async function setSchedule(
  db: Db,
  id: string,
  fields: { triggerType: string; schedule: Record<string, unknown> | null; nextRunAt: string | null },
): Promise<Agent> {
  const [row] = await db
    .update(agents)
    .set({ triggerType: fields.triggerType, schedule: fields.schedule, nextRunAt: fields.nextRunAt ? new Date(fields.nextRunAt) : null, updatedAt: new Date() })
    .where(eq(agents.id, id))
    .returning();
  if (!row) throw notFound("Agent");
  return row;
}

export async function deleteAgent(db: Db, userId: number, id: string): Promise<void> {
  const deleted = await db
    .delete(agents)
    .where(and(eq(agents.id, id), eq(agents.userId, userId)))
    .returning({ id: agents.id });
  if (deleted.length === 0) throw notFound("Agent");
}

export function listAgents(db: Db, userId: number) {
  return db
    .select({ agent: agents, workflowName: workflows.name })
    .from(agents)
    .innerJoin(workflows, eq(workflows.id, agents.workflowId))
    .where(eq(agents.userId, userId))
    .orderBy(desc(agents.createdAt))
    .limit(500)
    .all();
}

export function presentAgent(agent: Agent, workflowName: string) {
  const rate = agent.executionCount ? Math.round((agent.successCount / agent.executionCount) * 10_000) / 100 : 0;
  return {
    agent_id: agent.id,
    workflow_id: agent.workflowId,
    workflow_name: workflowName,
    status: agent.status,
    trigger_type: agent.triggerType,
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
