import { and, lt, notLike, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { insertSelectList } from "../db/insert-select";
import { prepareOnce, slot } from "../db/statement-cache";
import { executions, webhookDeliveries } from "../db/schema";
import { constantTimeEqual, hashSecret } from "../lib/crypto";
import { hmacHex } from "../lib/hmac";
import { BODY_ROW_PREFIX } from "./body-replays";
import type { InboundDelivery, SchemeOutcome } from "./webhook-schemes/types";

export const TOLERANCE_SECONDS = 5 * 60;

/**
 * The hub's own scheme (DESIGN §3): `X-Hub-Timestamp` (unix seconds) and `X-Hub-Signature:
 * sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">` under the agent's webhook secret. The
 * body (an object, or empty) is the run's input; its `type`, if a string, is the event type
 * that `event_types` filters on. A signature is spent by `spendHubSignature` once the event is
 * accepted.
 */
export async function verifyHubDelivery(secret: string, delivery: InboundDelivery, nowMs: number): Promise<SchemeOutcome & { signature?: string }> {
  const timestamp = delivery.headers.get("X-Hub-Timestamp") ?? "";
  if (!/^\d{1,12}$/.test(timestamp)) return { kind: "rejected", reason: "X-Hub-Timestamp (unix seconds) is required." };
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return { kind: "rejected", reason: "The timestamp is more than 5 minutes off." };
  const presented = parseSignature(delivery.headers.get("X-Hub-Signature") ?? "");
  if (!presented) return { kind: "rejected", reason: "X-Hub-Signature must be sha256=<64 hex digits>." };
  const expected = await hmacHex(secret, `${timestamp}.${delivery.rawBody}`);
  if (!constantTimeEqual(expected, presented)) return { kind: "rejected", reason: "The signature is not valid." };
  const event = parseEventBody(delivery.rawBody);
  if (event === null) return { kind: "rejected", reason: "The body must be a JSON object." };
  return { kind: "event", event, eventId: null, eventType: typeof event.type === "string" ? event.type : null, signature: presented };
}

/**
 * Spends a verified signature, as a statement of the run's own start (one round trip), written
 * only if the run's row is there when the batch gets to it: a start refused (a paused workflow, a
 * full quota) spends nothing, so the sender's retry of the same delivery still counts. The first
 * use wins; a replay, even a concurrent one, finds it taken and fails, and with it the whole start
 * (`isSpentSignature` tells that failure apart). The key is the signature's canonical hex, not the
 * header as sent, so `SHA256=`, upper-case and mixed-case spellings share it.
 */
export function spendHubSignatureStatement(db: Db, agentId: string, signatureKey: string, executionId: string): D1PreparedStatement {
  return prepareOnce(db.$client, "webhook:spend-signature", () => signatureSpend(db), { agentId, signatureHash: signatureKey, executionId });
}

const signatureSpend = (db: Db) =>
  db
    .insert(webhookDeliveries)
    .select(
      sql`select ${insertSelectList(webhookDeliveries, {}, { agentId: slot("agentId"), signatureHash: slot("signatureHash") })} where exists (select 1 from ${executions} where ${executions.id} = ${slot("executionId")})`,
    )
    .toSQL();

/** The failure of a start whose signature was spent before (SQLite's words for the table's primary key). */
export function isSpentSignature(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e.message.includes("UNIQUE constraint failed: webhook_deliveries.")) return true;
  }
  return false;
}

/** What a spent signature is kept as (a hash: the table holds no signature). */
export const hubSignatureKey = (signature: string) => hashSecret(`sha256=${signature}`);

/** An empty body is an empty input; anything else must be a JSON object (else null). */
function parseEventBody(raw: string): Record<string, unknown> | null {
  if (!raw.trim()) return {};
  try {
    const input: unknown = JSON.parse(raw);
    return input && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : null;
  } catch {
    return null;
  }
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

/**
 * Spent hub signatures, once their timestamp is refused: one stamped up to 5 minutes ahead of the
 * clock that spent it is accepted until 10 minutes after, so they are kept 10 minutes. The
 * remembered bodies of schemes with no timestamp (body-replays.ts) never expire and are kept.
 */
export async function forgetOldDeliveries(db: Db, now = Date.now()): Promise<void> {
  await db
    .delete(webhookDeliveries)
    .where(
      and(lt(webhookDeliveries.receivedAt, new Date(now - 2 * TOLERANCE_SECONDS * 1000)), notLike(webhookDeliveries.signatureHash, `${BODY_ROW_PREFIX}%`)),
    );
}
