import { and, eq, sql } from "drizzle-orm";
import { IsolateCache } from "../core/isolate-cache";
import { agents, workflows, type Workflow } from "../db/schema";
import { slot } from "../db/statement-cache";
import type { StartGuard } from "../executions/start";
import type { WebhookAgent } from "./webhook-admission";

/** An agent and its workflow, as a webhook delivery reads them. */
export interface WebhookTarget {
  agent: WebhookAgent;
  workflow: Workflow;
}

/**
 * The agents this isolate last started a webhook run for, with their workflows, so the next
 * delivery to one needs no read of them before its start: a provider sends its events to the
 * same few agents. A copy is never trusted: the run it starts is inserted only if the workflow is still
 * that version (the deferred start's own check) and the agent is still active with the same
 * secrets and credential (`agentUnchanged`); any other outcome (a bad signature, a paused agent,
 * an ignored type) is decided again from a fresh read. So a copy can be stale for any time; it
 * only costs that second read. Bounded like the workflow copies (workflows/cached.ts), weighed
 * whole; only the agent's columns a delivery uses are kept.
 */
const targets = new IsolateCache<WebhookTarget>({
  maxEntries: 5_000,
  maxWeight: 4 * 1024 * 1024,
  weigh: (target) => JSON.stringify(target).length,
});

export const webhookTargetCopy = (agentId: string): WebhookTarget | undefined => targets.peek(agentId);

/** Keeps the columns a delivery uses, not the agent's config or counters. */
export function rememberWebhookTarget({ agent, workflow }: WebhookTarget): void {
  const { id, userId, workflowId, status, credentialId, webhookSecret, providerSecret } = agent;
  targets.set(id, { agent: { id, userId, workflowId, status, credentialId, webhookSecret, providerSecret }, workflow });
}

export function forgetWebhookTarget(agentId: string): void {
  targets.forgetKey(agentId);
}

/**
 * The start's condition that the agent is as `agent` was read: still there, on this workflow,
 * active, with the same signing secrets (a secret set since would not have verified the
 * signature) and acting with the same credential.
 */
export function agentUnchanged(agent: WebhookAgent): StartGuard {
  return {
    name: "webhook-agent",
    condition: () =>
      sql`exists (select 1 from ${agents} where ${and(
        eq(agents.id, slot("guardAgent")),
        eq(agents.workflowId, workflows.id),
        eq(agents.status, "active"),
        eq(agents.credentialId, slot("guardCredential")),
        eq(agents.webhookSecret, slot("guardWebhookSecret")),
        sql`${agents.providerSecret} is ${slot("guardProviderSecret")}`,
      )})`,
    values: {
      guardAgent: agent.id,
      guardCredential: agent.credentialId,
      guardWebhookSecret: agent.webhookSecret,
      guardProviderSecret: agent.providerSecret,
    },
  };
}
