import { type IdempotencyKey, TRIGGER_KEY_PREFIX, TRIGGER_KEY_TTL_MS } from "../executions/start-keys";
import { base64url, sha256 } from "../lib/crypto";

/**
 * The idempotency key of the run a trigger starts for one event: derived from the agent and what
 * identifies the event (a provider's event id, a polled item's key), so a provider's retry, or a
 * poll redone after a crash, finds the run already started instead of starting a second one.
 */
export async function triggerKey(agentId: string, source: "webhook" | "poll", eventKey: string): Promise<IdempotencyKey> {
  // Hashed: keys are bounded whatever the provider's ids look like, and any id is safe in it.
  const digest = base64url(await sha256(eventKey));
  return { key: `${TRIGGER_KEY_PREFIX}${source} ${agentId} ${digest}`, requestHash: source, ttlMs: TRIGGER_KEY_TTL_MS };
}
