import { eq, lt } from "drizzle-orm";
import type { Runtime } from "../core/context";
import { HubError } from "../core/errors";
import type { Db } from "../db/client";
import { agents, webhookDeliveries, type Execution } from "../db/schema";
import { constantTimeEqual, hashSecret } from "../lib/crypto";
import { hmacHex } from "../connections/platforms/webhook";
import { startExecution } from "../executions/start-and-run";
import { getOwnedWorkflow } from "../workflows/service";
import { agentContext, agentStoppedReason, recordAgentRefusal } from "./service";

export const TOLERANCE_SECONDS = 5 * 60;

/** One signed event, as it arrived: the signature covers the raw bytes, so they are kept as sent. */
export interface WebhookDelivery {
  agentId: string;
  timestamp: string;
  signature: string;
  rawBody: string;
}

const refused = (detail: string) => new HubError("unauthorized", detail, { challenge: 'HMAC realm="agent-automation-hub"' });

/**
 * An event for an agent: the caller proves itself with an HMAC of "<timestamp>.<raw body>" under
 * the agent's webhook secret; stale timestamps and signatures seen before are refused. The JSON
 * body (verified first, parsed after) becomes the run's input, and the run acts with the
 * credential that deployed the agent.
 */
export async function deliverWebhook(runtime: Runtime, delivery: WebhookDelivery): Promise<Execution> {
  const { db } = runtime;
  const agent = await db.select().from(agents).where(eq(agents.id, delivery.agentId)).get();
  // An unknown agent and a bad signature look the same, so ids cannot be probed.
  if (!agent) throw refused("The signature is not valid.");
  const { timestamp, rawBody } = delivery;
  if (!/^\d{1,12}$/.test(timestamp)) throw refused("X-Hub-Timestamp (unix seconds) is required.");
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) throw refused("The timestamp is more than 5 minutes off.");
  const secret = await (await runtime.secrets()).open(agent.webhookSecret, `agent:${agent.id}:webhook_secret`);
  const presented = parseSignature(delivery.signature);
  if (!presented) throw refused("X-Hub-Signature must be sha256=<64 hex digits>.");
  const expected = await hmacHex(secret, `${timestamp}.${rawBody}`);
  if (!constantTimeEqual(expected, presented)) throw refused("The signature is not valid.");
  if (agent.status === "paused") throw new HubError("conflict", "The agent is paused.");
  const stopped = await agentStoppedReason(db, agent);
  if (stopped) {
    await recordAgentRefusal(db, agent.id, stopped);
    throw new HubError("forbidden", stopped);
  }
  const input = parseEventBody(rawBody);
  // First use of this signature wins; a replay (even a concurrent one) finds it taken.
  // The replay key comes from the verified signature bytes (as canonical hex), not the header
  // as sent: `SHA256=`, upper-case or mixed-case spellings of one signature share one key.
  const fresh = await db
    .insert(webhookDeliveries)
    .values({ agentId: agent.id, signatureHash: await hashSecret(`sha256=${presented}`) })
    .onConflictDoNothing()
    .returning({ hash: webhookDeliveries.signatureHash });
  if (fresh.length === 0) throw refused("This signature was already used.");

  const ctx = agentContext(runtime, agent);
  const workflow = await getOwnedWorkflow(ctx, agent.workflowId);
  return startExecution(ctx, workflow, { input, agentId: agent.id });
}

/** An empty body is an empty input; anything else must be a JSON object. */
function parseEventBody(raw: string): Record<string, unknown> {
  if (!raw.trim()) return {};
  let input: unknown;
  try {
    input = JSON.parse(raw);
  } catch {
    throw new HubError("malformed_json", "The body must be JSON.");
  }
  if (!input || typeof input !== "object" || Array.isArray(input)) throw new HubError("validation_failed", "The body must be a JSON object.");
  return input as Record<string, unknown>;
}

/** The signature's 32 bytes as lower-case hex, from `sha256=<hex>` in any letter case; else null. */
export function parseSignature(header: string): string | null {
  const value = header.trim();
  if (value.length !== 71 || value.slice(0, 7).toLowerCase() !== "sha256=") return null;
  const hex = value.slice(7).toLowerCase();
  for (let i = 0; i < hex.length; i++) {
    const code = hex.charCodeAt(i);
    if (!((code >= 48 && code <= 57) || (code >= 97 && code <= 102))) return null;
  }
  return hex;
}

/** Signatures older than the tolerance can no longer be replayed (their timestamp is refused). */
export async function forgetOldDeliveries(db: Db, now = Date.now()): Promise<void> {
  await db.delete(webhookDeliveries).where(lt(webhookDeliveries.receivedAt, new Date(now - 2 * TOLERANCE_SECONDS * 1000)));
}
