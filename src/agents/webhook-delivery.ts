import { eq } from "drizzle-orm";
import type { Runtime } from "../core/context";
import { HubError } from "../core/errors";
import { agents, workflows } from "../db/schema";
import { startEventRun } from "../executions/event-start";
import { startAndRun } from "../executions/start-and-run";
import { StartSkipped } from "../executions/flow-control";
import { consumeRateLimits, exhaustedOf } from "../http/rate-limit";
import { loggableError } from "../lib/safe-log";
import type { WorkflowSettings } from "../workflows/steps";
import { isReplayedBody, rememberBody } from "./body-replays";
import { type NewAgentEvent, recordAgentEvent } from "./events";
import { isSpentSignature } from "./hub-scheme";
import { agentContext, recordAgentRefusal } from "./service";
import { admitDelivery, schemeOf } from "./webhook-admission";
import type { InboundDelivery } from "./webhook-schemes/types";
import { type WebhookTarget, agentUnchanged, forgetWebhookTarget, rememberWebhookTarget, webhookTargetCopy } from "./webhook-targets";

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
 * provider's retry finds the run the first delivery started) and started; the answer does not
 * wait for the run, only for its start to be written. Every delivery to a known agent is logged
 * with its outcome.
 *
 * A delivery to an agent this isolate started a run for before is first tried from its copy of
 * the agent (webhook-targets.ts): verified with it and started with the run's first write, so a
 * run of pure steps is one D1 write in all and neither agent nor workflow is read before it. Anything else, or a
 * copy found stale when the start is written, goes the way every first delivery goes: read, decide,
 * log, start.
 */
export async function deliverWebhook(runtime: Runtime, request: WebhookRequest): Promise<WebhookAnswer> {
  const copy = webhookTargetCopy(request.agentId);
  if (copy) {
    const answer = await deliverToCopy(runtime, request, copy);
    if (answer) return answer;
  }
  return deliverToRead(runtime, request);
}

/**
 * The delivery started from the copy, or undefined when the copy cannot decide it alone: an
 * outcome other than a start (decided again from a fresh read, which logs it), or a start that
 * was refused or failed (the copy is forgotten; the fresh read says why).
 */
async function deliverToCopy(runtime: Runtime, request: WebhookRequest, { agent, workflow }: WebhookTarget): Promise<WebhookAnswer | undefined> {
  try {
    const admission = await admitDelivery(runtime, agent, workflow, request, new Date());
    if (admission.kind !== "start") return undefined;
    const { input, idempotency, also } = admission;
    const ctx = agentContext(runtime, agent);
    const execution = await startEventRun(ctx, workflow, { input, agentId: agent.id, trigger: "webhook" }, { idempotency, also, guard: agentUnchanged(agent) });
    if (execution) return { status: 202, body: { execution_id: execution.id, status: "queued" } };
    forgetWebhookTarget(agent.id);
    return undefined;
  } catch (error) {
    forgetWebhookTarget(agent.id);
    // A hub signature used before, or a body delivered before, fails the start's batch, and the
    // fresh read answers it; any other failure is worth a line, as every delivery would otherwise
    // quietly go the long way.
    if (!isSpentSignature(error) && !isReplayedBody(error)) {
      console.warn(
        JSON.stringify({ level: "warn", message: "webhook start from a copy failed; read afresh", agent_id: agent.id, error: loggableError(error) }),
      );
    }
    return undefined;
  }
}

async function deliverToRead(runtime: Runtime, request: WebhookRequest): Promise<WebhookAnswer> {
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
  const log = (outcome: NewAgentEvent["outcome"], fields: Partial<NewAgentEvent> = {}) =>
    recordAgentEvent(db, { agentId: agent.id, source: "webhook", outcome, receivedAt, ...fields });

  const admission = await admitDelivery(runtime, agent, workflow, request, receivedAt);
  // A verified body that starts nothing is remembered all the same (body-replays.ts).
  const remembered = admission.kind !== "rejected" && admission.kind !== "start" && admission.remember ? rememberBody(db, admission.remember) : undefined;
  switch (admission.kind) {
    case "rejected":
      if (await mayLogRejection(runtime, agent.id)) await log("rejected", { detail: admission.reason });
      throw refused(admission.reason);
    case "reply":
      await Promise.all([remembered, log("ignored", { detail: `Answered the ${schemeOf(workflow)} handshake; nothing to run.` })]);
      return { status: 200, body: admission.body };
    case "paused":
      await Promise.all([remembered, log("error", { ...admission.fields, detail: "The agent is paused." })]);
      throw new HubError("conflict", "The agent is paused.");
    case "stopped":
      await Promise.all([remembered, recordAgentRefusal(db, agent.id, admission.reason), log("error", { ...admission.fields, detail: admission.reason })]);
      throw new HubError("forbidden", admission.reason);
    case "ignored":
      await Promise.all([remembered, log("ignored", { ...admission.fields, detail: admission.detail })]);
      return { status: 200, body: { ignored: true } };
  }

  const { fields, input, idempotency, also } = admission;
  let started: Awaited<ReturnType<typeof startAndRun>>;
  try {
    // The workflow read with the agent (its owner's): the run's insert need not read it again.
    started = await startAndRun(agentContext(runtime, agent), workflow, { input, agentId: agent.id, trigger: "webhook" }, { idempotency, also });
  } catch (error) {
    // Skipped by the workflow's rate_limit (logged as such); the provider need not retry it.
    if (error instanceof StartSkipped) return { status: 202, body: { status: "skipped", reason: error.reason } };
    if (isSpentSignature(error)) {
      if (await mayLogRejection(runtime, agent.id)) await log("rejected", { detail: "This signature was already used." });
      throw refused("This signature was already used.");
    }
    // Answered as a replayed event id is: 200, so the provider does not retry it.
    if (isReplayedBody(error)) {
      await log("duplicate", {
        ...fields,
        detail: "This signed body was delivered before (under another event type, or it started a run); nothing new was started.",
      });
      return { status: 200, body: { duplicate: true } };
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
  // A workflow that limits its concurrent runs queues them: a copy would not start them.
  if (!(workflow.settings as WorkflowSettings).concurrency) rememberWebhookTarget({ agent, workflow });
  return { status: 202, body: { execution_id: executionId, status: "queued" } };
}

async function mayLogRejection(runtime: Runtime, agentId: string): Promise<boolean> {
  const limits = await consumeRateLimits(runtime.bindings.RATE_LIMITER, `agent-rejections:${agentId}`, [
    { name: "rejections", limit: REJECTIONS_LOGGED_PER_MINUTE },
  ]);
  return !exhaustedOf(limits);
}
