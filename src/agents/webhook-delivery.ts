import { eq } from "drizzle-orm";
import type { Runtime } from "../core/context";
import { HubError } from "../core/errors";
import { agents, workflows, type Agent } from "../db/schema";
import { startAndRun } from "../executions/start-and-run";
import { consumeRateLimits, exhaustedOf } from "../http/rate-limit";
import { type NewAgentEvent, recordAgentEvent, startedEventStatements } from "./events";
import { hubSignatureKey, isSpentSignature, spendHubSignatureStatement, verifyHubDelivery } from "./hub-scheme";
import { agentContext, agentStoppedReason, recordAgentRefusal } from "./service";
import { providerSecretLabel } from "./secret-labels";
import { triggerKey } from "./trigger-keys";
import { verifyProviderDelivery } from "./webhook-schemes";
import type { InboundDelivery, ProviderScheme, SchemeOutcome } from "./webhook-schemes/types";

/** Rejected deliveries logged per agent per minute: a flood of bad calls cannot flood the log. */
const REJECTIONS_LOGGED_PER_MINUTE = 30;

export interface WebhookRequest extends InboundDelivery {
  agentId: string;
}

/** What the sender is answered: 202 a run started, 200 a reply with no run (handshake, duplicate, ignored). */
export interface WebhookAnswer {
  status: 200 | 202;
  body: Record<string, unknown>;
}

const refused = (detail: string) => new HubError("unauthorized", detail, { challenge: 'HMAC realm="agent-automation-hub"' });

/**
 * An event for an agent (DESIGN §5 "Webhook verification"). The workflow's webhook trigger says
 * how the caller proves itself: the hub's own HMAC scheme by default, or a provider's (Stripe,
 * GitHub, Slack, Shopify, HubSpot, Typeform) under the signing secret the owner set, or a plain
 * token. A verified event is filtered by `event_types`, deduplicated by its event id (a
 * provider's retry finds the run the first delivery started) and started: the run goes on in this
 * invocation after the answer (as a REST execute's does, with the queue as its backstop), so the
 * answer does not wait for it and no queue hop delays its start. Every delivery to a known agent
 * is logged with its outcome.
 */
export async function deliverWebhook(runtime: Runtime, request: WebhookRequest): Promise<WebhookAnswer> {
  const { db } = runtime;
  const row = await db
    .select({ agent: agents, workflow: workflows })
    .from(agents)
    .innerJoin(workflows, eq(workflows.id, agents.workflowId))
    .where(eq(agents.id, request.agentId))
    .get();
  // An unknown agent and a bad signature look the same, so ids cannot be probed.
  if (!row) throw refused("The signature is not valid.");
  const { agent, workflow } = row;
  const receivedAt = new Date();
  const config = workflow.triggerType === "webhook" ? workflow.triggerConfig : {};
  const scheme = typeof config.verify === "string" ? config.verify : "hub";
  const log = (outcome: NewAgentEvent["outcome"], fields: Partial<NewAgentEvent> = {}) =>
    recordAgentEvent(db, { agentId: agent.id, source: "webhook", outcome, receivedAt, ...fields });

  const verdict = await verify(runtime, agent, scheme, request, receivedAt.getTime());
  if (verdict.kind === "rejected") {
    if (await mayLogRejection(runtime, agent.id)) await log("rejected", { detail: verdict.reason });
    throw refused(verdict.reason);
  }
  if (verdict.kind === "reply") {
    await log("ignored", { detail: `Answered the ${scheme} handshake; nothing to run.` });
    return { status: 200, body: verdict.body };
  }
  const { eventId, eventType } = verdict;
  const fields = { eventId, eventType };
  if (agent.status === "paused") {
    await log("error", { ...fields, detail: "The agent is paused." });
    throw new HubError("conflict", "The agent is paused.");
  }
  const stopped = await agentStoppedReason(db, agent);
  if (stopped) {
    await Promise.all([recordAgentRefusal(db, agent.id, stopped), log("error", { ...fields, detail: stopped })]);
    throw new HubError("forbidden", stopped);
  }
  const wanted = Array.isArray(config.event_types) ? config.event_types.map(String) : null;
  if (wanted && !(eventType !== null && wanted.includes(eventType))) {
    await log("ignored", { ...fields, detail: eventType === null ? "The event has no type; event_types filters." : `${eventType} is not in event_types.` });
    return { status: 200, body: { ignored: true } };
  }

  const input =
    scheme === "hub"
      ? (verdict.event as Record<string, unknown>)
      : { event: verdict.event, event_id: eventId, event_type: eventType, received_at: receivedAt.toISOString() };
  const ctx = agentContext(runtime, agent);
  let started: Awaited<ReturnType<typeof startAndRun>>;
  try {
    // The workflow read with the agent (its owner's): the run's insert need not read it again.
    // The signature's spend and the events-log row go in the start's own transaction, once the run is in.
    // Deduplicated by the event id, or where the id is not signed by the body's MAC (see replayKey).
    const sameEvent = verdict.replayKey ?? eventId;
    const idempotency = sameEvent ? await triggerKey(agent.id, "webhook", sameEvent) : undefined;
    const signatureKey = verdict.signature ? await hubSignatureKey(verdict.signature) : null;
    const also = {
      after: (executionId: string) => [
        ...(signatureKey ? [spendHubSignatureStatement(db, agent.id, signatureKey, executionId)] : []),
        ...startedEventStatements(db, { agentId: agent.id, source: "webhook", outcome: "started", receivedAt, ...fields, executionId }),
      ],
    };
    started = await startAndRun(ctx, workflow, { input, agentId: agent.id }, { idempotency, also });
  } catch (error) {
    if (isSpentSignature(error)) {
      if (await mayLogRejection(runtime, agent.id)) await log("rejected", { detail: "This signature was already used." });
      throw refused("This signature was already used.");
    }
    // A paused workflow or a full quota: the provider is refused and will retry; the owner sees why.
    if (error instanceof HubError) await log("error", { ...fields, detail: error.message });
    throw error;
  }
  const executionId = started.execution.id;
  if (started.replayed) {
    await log("duplicate", { ...fields, executionId, detail: "This event id was delivered before; nothing new was started." });
    return { status: 200, body: { duplicate: true, execution_id: executionId } };
  }
  return { status: 202, body: { execution_id: executionId, status: "queued" } };
}

type Verdict = SchemeOutcome & { signature?: string };

async function verify(runtime: Runtime, agent: Agent, scheme: string, delivery: InboundDelivery, nowMs: number): Promise<Verdict> {
  const box = await runtime.secrets();
  if (scheme === "hub") return verifyHubDelivery(await box.open(agent.webhookSecret, `agent:${agent.id}:webhook_secret`), delivery, nowMs);
  if (!agent.providerSecret) {
    return { kind: "rejected", reason: `No ${scheme} signing secret is set for this agent: set it with PUT /v1/agents/${agent.id}/webhook-secret.` };
  }
  const secret = await box.open(agent.providerSecret, providerSecretLabel(agent.id));
  return verifyProviderDelivery(scheme as ProviderScheme, secret, delivery, nowMs);
}

async function mayLogRejection(runtime: Runtime, agentId: string): Promise<boolean> {
  const limits = await consumeRateLimits(runtime.bindings.RATE_LIMITER, `agent-rejections:${agentId}`, [
    { name: "rejections", limit: REJECTIONS_LOGGED_PER_MINUTE },
  ]);
  return !exhaustedOf(limits);
}
