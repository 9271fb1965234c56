import type { Runtime } from "../core/context";
import type { Agent, Workflow } from "../db/schema";
import type { StartAlongside } from "../executions/start";
import type { IdempotencyKey } from "../executions/start-keys";
import { type RememberedBody, bodyStartStatements, rememberedBody } from "./body-replays";
import { startedEventStatements } from "./events";
import { hubSignatureKey, spendHubSignatureStatement, verifyHubDelivery } from "./hub-scheme";
import { agentStoppedReason } from "./service";
import { providerSecretLabel } from "./secret-labels";
import { triggerKey } from "./trigger-keys";
import { verifyProviderDelivery } from "./webhook-schemes";
import type { InboundDelivery, ProviderScheme, SchemeOutcome } from "./webhook-schemes/types";

/**
 * What a delivery to an agent comes to, decided from the agent and its workflow as read, before
 * anything is written: refused (`rejected`, `paused`, `stopped`), answered with no run (`reply`,
 * `ignored`), or a run to start (`start`, with everything its start writes). A verified body that
 * never expires comes with `remember` (body-replays.ts): whoever answers a delivery that starts
 * nothing writes it, so the body cannot come back under another type; a start writes it itself.
 */
export type Admission =
  | { kind: "rejected"; reason: string }
  | { kind: "reply"; body: Record<string, unknown>; remember?: RememberedBody }
  | { kind: "paused"; fields: EventFields; remember?: RememberedBody }
  | { kind: "stopped"; reason: string; fields: EventFields; remember?: RememberedBody }
  | { kind: "ignored"; detail: string; fields: EventFields; remember?: RememberedBody }
  | { kind: "start"; fields: EventFields; input: Record<string, unknown>; idempotency?: IdempotencyKey; also: StartAlongside };

/** What of an agent a delivery is decided and started with. */
export type WebhookAgent = Pick<Agent, "id" | "userId" | "workflowId" | "status" | "credentialId" | "webhookSecret" | "providerSecret">;

export interface EventFields {
  eventId: string | null;
  eventType: string | null;
}

/** The scheme the workflow's webhook trigger names (`trigger_config.verify`), the hub's by default. */
export function schemeOf(workflow: Workflow): string {
  const config = workflow.triggerType === "webhook" ? workflow.triggerConfig : {};
  return typeof config.verify === "string" ? config.verify : "hub";
}

/**
 * Decides a delivery (DESIGN §5 "Webhook verification"): the signature under the agent's secret
 * for its scheme, the agent's state, `event_types`; a run to start is deduplicated by the event
 * id, or where no signed id says so by the signature (see replayKey), and carries the hub
 * scheme's signature spend, a never-expiring body's replay check (body-replays.ts) and the
 * events-log row in its start's own transaction.
 */
export async function admitDelivery(
  runtime: Runtime,
  agent: WebhookAgent,
  workflow: Workflow,
  delivery: InboundDelivery,
  receivedAt: Date,
): Promise<Admission> {
  const scheme = schemeOf(workflow);
  const verdict = await verify(runtime, agent, scheme, delivery, receivedAt.getTime());
  if (verdict.kind === "rejected") return verdict;
  if (verdict.kind === "reply") {
    const remember = verdict.bodyMac ? await rememberedBody(agent.id, verdict.bodyMac, verdict.eventType ?? null) : undefined;
    return { kind: "reply", body: verdict.body, remember };
  }
  const { eventId, eventType } = verdict;
  const fields = { eventId, eventType };
  const remember = verdict.bodyMac ? await rememberedBody(agent.id, verdict.bodyMac, eventType) : undefined;
  if (agent.status === "paused") return { kind: "paused", fields, remember };
  const stopped = await agentStoppedReason(runtime.db, agent);
  if (stopped) return { kind: "stopped", reason: stopped, fields, remember };
  const config = workflow.triggerType === "webhook" ? workflow.triggerConfig : {};
  const wanted = Array.isArray(config.event_types) ? config.event_types.map(String) : null;
  if (wanted && !(eventType !== null && wanted.includes(eventType))) {
    const detail = eventType === null ? "The event has no type; event_types filters." : `${eventType} is not in event_types.`;
    return { kind: "ignored", detail, fields, remember };
  }

  const input =
    scheme === "hub"
      ? (verdict.event as Record<string, unknown>)
      : { event: verdict.event, event_id: eventId, event_type: eventType, received_at: receivedAt.toISOString() };
  const sameEvent = verdict.replayKey ?? eventId;
  const idempotency = sameEvent ? await triggerKey(agent.id, "webhook", sameEvent) : undefined;
  const signatureKey = verdict.signature ? await hubSignatureKey(verdict.signature) : null;
  const { db } = runtime;
  const also = {
    after: (executionId: string) => [
      ...(signatureKey ? [spendHubSignatureStatement(db, agent.id, signatureKey, executionId)] : []),
      ...(remember ? bodyStartStatements(db, remember, executionId) : []),
      ...startedEventStatements(db, { agentId: agent.id, source: "webhook", outcome: "started", receivedAt, ...fields, executionId }),
    ],
  };
  return { kind: "start", fields, input, idempotency, also };
}

type Verdict = SchemeOutcome & { signature?: string };

async function verify(runtime: Runtime, agent: WebhookAgent, scheme: string, delivery: InboundDelivery, nowMs: number): Promise<Verdict> {
  const box = await runtime.secrets();
  if (scheme === "hub") return verifyHubDelivery(await box.open(agent.webhookSecret, `agent:${agent.id}:webhook_secret`), delivery, nowMs);
  if (!agent.providerSecret) {
    return { kind: "rejected", reason: `No ${scheme} signing secret is set for this agent: set it with PUT /v1/agents/${agent.id}/webhook-secret.` };
  }
  const secret = await box.open(agent.providerSecret, providerSecretLabel(agent.id));
  return verifyProviderDelivery(scheme as ProviderScheme, secret, delivery, nowMs);
}
