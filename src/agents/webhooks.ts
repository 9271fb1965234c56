import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import { ProblemSchema } from "../http/schemas";
import { bodyLimit } from "hono/body-limit";
import { eq, lt } from "drizzle-orm";
import type { Db } from "../db/client";
import { agents, webhookDeliveries } from "../db/schema";
import type { AppEnv } from "../http/app-env";
import { HubError } from "../core/errors";
import { MAX_BODY_BYTES } from "../http/middleware";
import { clientAddress, consumeRateLimits, exhaustedOf, rateLimited } from "../http/rate-limit";
import { constantTimeEqual, hashSecret } from "../auth/crypto";
import { secretBoxFor } from "../connections/secrets";
import { hmacHex } from "../connections/platforms/webhook";
import { startExecution } from "../workflows/executions";
import { getOwnedWorkflow } from "../workflows/service";
import { agentStoppedReason, recordAgentRefusal } from "./service";

export const TOLERANCE_SECONDS = 5 * 60;

/**
 * POST /v1/hooks/agents/{agent_id}: an event trigger. No bearer credential: the caller proves
 * itself with X-Hub-Signature = sha256=<hex HMAC-SHA256 of "<X-Hub-Timestamp>.<raw body>"> under
 * the agent's webhook secret. Stale timestamps and signatures seen before are refused. The JSON
 * body becomes the run's input_data.
 */
export const agentWebhooks = new Hono<AppEnv>().post(
  "/hooks/agents/:agent_id",
  bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new HubError("payload_too_large", `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`);
    },
  }),
  async (c) => {
    const limits = await consumeRateLimits(c.env, `addr:${clientAddress(c)}`, [{ name: "webhooks", limit: c.get("config").limits.requestsPerMinute }]);
    if (exhaustedOf(limits)) throw rateLimited(limits, { webhooks: "webhook calls" });
    const db = c.get("db");
    const refused = (detail: string) => new HubError("unauthorized", detail, { challenge: 'HMAC realm="agent-automation-hub"' });
    const agent = await db
      .select()
      .from(agents)
      .where(eq(agents.id, c.req.param("agent_id")))
      .get();
    // An unknown agent and a bad signature look the same, so ids cannot be probed.
    if (!agent) throw refused("The signature is not valid.");
    const timestamp = c.req.header("X-Hub-Timestamp") ?? "";
    const signature = c.req.header("X-Hub-Signature") ?? "";
    const raw = await c.req.text();
    if (!/^\d{1,12}$/.test(timestamp)) throw refused("X-Hub-Timestamp (unix seconds) is required.");
    if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) throw refused("The timestamp is more than 5 minutes off.");
    const secret = await (await secretBoxFor(c.env)).open(agent.webhookSecret, `agent:${agent.id}:webhook_secret`);
    const presented = parseSignature(signature);
    if (!presented) throw refused("X-Hub-Signature must be sha256=<64 hex digits>.");
    const expected = await hmacHex(secret, `${timestamp}.${raw}`);
    if (!constantTimeEqual(expected, presented)) throw refused("The signature is not valid.");
    if (agent.status === "paused") throw new HubError("conflict", "The agent is paused.");
    const stopped = await agentStoppedReason(db, agent);
    if (stopped) {
      await recordAgentRefusal(db, agent.id, stopped);
      throw new HubError("forbidden", stopped);
    }

    let input: unknown = {};
    if (raw.trim()) {
      try {
        input = JSON.parse(raw);
      } catch {
        throw new HubError("malformed_json", "The body must be JSON.");
      }
    }
    if (!input || typeof input !== "object" || Array.isArray(input)) throw new HubError("validation_failed", "The body must be a JSON object.");
    // First use of this signature wins; a replay (even a concurrent one) finds it taken.
    // The replay key comes from the verified signature bytes (as canonical hex), not the header
    // as sent: `SHA256=`, upper-case or mixed-case spellings of one signature share one key.
    const fresh = await db
      .insert(webhookDeliveries)
      .values({ agentId: agent.id, signatureHash: await hashSecret(`sha256=${presented}`) })
      .onConflictDoNothing()
      .returning({ hash: webhookDeliveries.signatureHash });
    if (fresh.length === 0) throw refused("This signature was already used.");

    const workflow = await getOwnedWorkflow(db, agent.userId, agent.workflowId);
    const run = await startExecution(c.env, db, workflow, {
      userId: agent.userId,
      credentialId: agent.credentialId,
      input: input as Record<string, unknown>,
      agentId: agent.id,
    });
    return c.json({ execution_id: run.id, status: "queued" }, 202);
  },
);

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

/** The webhook is a plain handler (it reads the raw body to verify it); this documents it. */
export function describeAgentWebhook(v1: OpenAPIHono<AppEnv, any, any>) {
  v1.openAPIRegistry.registerPath({
    method: "post",
    path: "/hooks/agents/{agent_id}",
    tags: ["Agents"],
    summary: "Trigger an agent with an event (signed webhook)",
    description:
      "No bearer credential. Send `X-Hub-Timestamp` (unix seconds) and `X-Hub-Signature: sha256=<hex HMAC-SHA256 of \"<timestamp>.<raw body>\">` under the agent's webhook_secret. Refused (401) when the signature is wrong, the timestamp is more than 5 minutes off, or the signature was used before. The JSON body becomes the run's input_data.",
    security: [],
    request: {
      params: z.object({ agent_id: z.string().openapi({ param: { name: "agent_id", in: "path" } }) }),
      headers: z.object({ "X-Hub-Timestamp": z.string(), "X-Hub-Signature": z.string() }),
      body: { required: false, content: { "application/json": { schema: z.record(z.string(), z.unknown()) } } },
    },
    responses: {
      202: { description: "Queued", content: { "application/json": { schema: z.object({ execution_id: z.string(), status: z.literal("queued") }) } } },
      401: { description: "Bad, stale or replayed signature", content: { "application/problem+json": { schema: ProblemSchema } } },
      403: {
        description: "The agent is stopped: the credential that deployed it was revoked",
        content: { "application/problem+json": { schema: ProblemSchema } },
      },
      409: {
        description: "The agent or its workflow is paused, or the account has too many unfinished runs",
        content: { "application/problem+json": { schema: ProblemSchema } },
      },
      413: { description: "Body larger than 1 MiB", content: { "application/problem+json": { schema: ProblemSchema } } },
      429: { description: "Too many calls", content: { "application/problem+json": { schema: ProblemSchema } } },
    },
  });
}
