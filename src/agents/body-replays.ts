import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { insertSelectList } from "../db/insert-select";
import { prepareOnce, slot } from "../db/statement-cache";
import { executions, webhookDeliveries } from "../db/schema";
import { base64url, sha256 } from "../lib/crypto";

/**
 * Body signatures that never expire. GitHub, Shopify and Typeform sign the body alone, with no
 * timestamp, so a captured delivery verifies for as long as the secret does; GitHub and Shopify
 * also carry the event type in a header they do not sign. A verified body is therefore
 * remembered for as long as its agent, whatever became of it (started, ignored by
 * `event_types`, refused while paused, a handshake), in two kinds of rows of
 * `webhook_deliveries` (whose other rows are the hub scheme's spent signatures, base64url with
 * no space, swept after 10 minutes; these start with BODY_ROW_PREFIX and are not swept):
 *
 * - `body <mac digest> <type digest>`: the body was first verified under this type. A later
 *   delivery of the same body under another type is a replay, never a run. The provider's own
 *   retry of a delivery refused while the agent was paused has the same type, and starts its run.
 * - `body <mac digest> !`: a run started for this body. Any later delivery of it is a replay, long
 *   after the idempotency key of that run (kept 7 days) is gone.
 *
 * Both kinds of a body sort between `body <mac digest> ` and `body <mac digest>!`, so one range
 * read over the table's primary key finds them. Kept until the agent is deleted, also across a
 * new signing secret (an old secret set again would otherwise re-open what it signed): one short
 * row per body verified, beside the run each started.
 */
export const BODY_ROW_PREFIX = "body ";

/** The rows of one body delivered to one agent under one type. */
export interface RememberedBody {
  agentId: string;
  /** The row binding the body to this type. */
  typed: string;
  /** The row saying a run started for the body. */
  ran: string;
  /** Every row of the body is at least `low` and below `high`. */
  low: string;
  high: string;
}

/** The rows of a body whose MAC is `mac`, delivered under `eventType`. Digests, so the table holds no signature. */
export async function rememberedBody(agentId: string, mac: string, eventType: string | null): Promise<RememberedBody> {
  // 128 bits tell bodies apart; a type only needs telling apart from the other types of one body.
  const body = `${BODY_ROW_PREFIX}${base64url((await sha256(mac)).subarray(0, 16))}`;
  const type = eventType === null ? "-" : base64url((await sha256(eventType)).subarray(0, 12));
  return { agentId, typed: `${body} ${type}`, ran: `${body} !`, low: `${body} `, high: `${body}!` };
}

/**
 * Remembers a body no run was started for (ignored, refused, a handshake): binds it to its type
 * if it has no row yet. A body seen before keeps what it has.
 */
export async function rememberBody(db: Db, body: RememberedBody): Promise<void> {
  // No run has the empty id, so the statement's run check always passes.
  await bindStatement(db, body, "").run();
}

/**
 * Statements of a run's start for a remembered body (see StartAlongside: each checks for itself
 * that the run is there): refuse the start if the body came under another type or has started a
 * run before (the whole start fails, and `isReplayedBody` tells that failure apart), bind the body
 * to its type when the start was refused (a paused workflow, a full quota), and note the run.
 */
export function bodyStartStatements(db: Db, body: RememberedBody, executionId: string): D1PreparedStatement[] {
  const d1 = db.$client;
  const values = { ...body, executionId };
  return [
    prepareOnce(d1, "webhook:body-replayed", () => replayRefusal(db), values),
    bindStatement(db, body, executionId),
    prepareOnce(d1, "webhook:body-ran", () => ranInsert(db), values),
  ];
}

/** The failure of a start whose body was delivered before (SQLite's words for the refusal's null; see replayRefusal). */
export function isReplayedBody(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e.message.includes("NOT NULL constraint failed: webhook_deliveries.signature_hash")) return true;
  }
  return false;
}

const runThere = sql`exists (select 1 from ${executions} where ${executions.id} = ${slot("executionId")})`;

const otherRowsOfBody = sql`exists (select 1 from ${webhookDeliveries} where ${webhookDeliveries.agentId} = ${slot("agentId")} and ${webhookDeliveries.signatureHash} >= ${slot("low")} and ${webhookDeliveries.signatureHash} < ${slot("high")} and ${webhookDeliveries.signatureHash} <> ${slot("typed")})`;

const anyRowOfBody = sql`exists (select 1 from ${webhookDeliveries} where ${webhookDeliveries.agentId} = ${slot("agentId")} and ${webhookDeliveries.signatureHash} >= ${slot("low")} and ${webhookDeliveries.signatureHash} < ${slot("high")})`;

/**
 * Writes a row with no signature when the run is there and the body has a row other than this
 * type's: the NOT NULL constraint fails, and with it the start's transaction, so the run is never
 * written (a D1 batch has no other way to abort).
 */
const replayRefusal = (db: Db) =>
  db
    .insert(webhookDeliveries)
    .select(
      sql`select ${insertSelectList(webhookDeliveries, {}, { agentId: slot("agentId"), signatureHash: sql`null` })} where ${runThere} and ${otherRowsOfBody}`,
    )
    .toSQL();

/** The body's first type, when it has no row yet and no run is being started for it. */
function bindStatement(db: Db, body: RememberedBody, executionId: string): D1PreparedStatement {
  return prepareOnce(db.$client, "webhook:body-bind", () => bindInsert(db), { ...body, executionId });
}

const bindInsert = (db: Db) =>
  db
    .insert(webhookDeliveries)
    .select(
      sql`select ${insertSelectList(webhookDeliveries, {}, { agentId: slot("agentId"), signatureHash: slot("typed") })} where not ${runThere} and not ${anyRowOfBody}`,
    )
    .toSQL();

const ranInsert = (db: Db) =>
  db
    .insert(webhookDeliveries)
    .select(sql`select ${insertSelectList(webhookDeliveries, {}, { agentId: slot("agentId"), signatureHash: slot("ran") })} where ${runThere}`)
    .onConflictDoNothing()
    .toSQL();
