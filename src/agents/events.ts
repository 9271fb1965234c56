import { z } from "@hono/zod-openapi";
import { and, desc, eq, getTableColumns, lt, or, sql } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import type { Db } from "../db/client";
import { insertSelectList } from "../db/insert-select";
import { encodeFor, prepareOnce, slot } from "../db/statement-cache";
import { agentEvents, agents, executions, type AgentEvent } from "../db/schema";
import { decodeCursor, paginate } from "../http/pagination";
import { randomToken } from "../lib/crypto";
import { notFound } from "../core/errors";

/** How long the events log keeps a delivery or poll. */
export const EVENT_RETENTION_MS = 7 * 24 * 3600 * 1000;
/** A detail is for a person debugging: a sentence, not a payload. */
const MAX_DETAIL_CHARS = 500;

export type EventSource = AgentEvent["source"];
export type EventOutcome = AgentEvent["outcome"];

export interface NewAgentEvent {
  agentId: string;
  source: EventSource;
  outcome: EventOutcome;
  eventType?: string | null;
  eventId?: string | null;
  executionId?: string | null;
  detail?: string | null;
  receivedAt?: Date;
}

const clip = (text: string | null | undefined, max: number) => (text == null ? null : text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The row of one event (ids are random: the cursor orders by time first). */
export function eventRow(event: NewAgentEvent) {
  return {
    id: `evt_${randomToken(12)}`,
    agentId: event.agentId,
    receivedAt: event.receivedAt ?? new Date(),
    source: event.source,
    outcome: event.outcome,
    eventType: clip(event.eventType, 200),
    eventId: clip(event.eventId, 200),
    executionId: event.executionId ?? null,
    detail: clip(event.detail, MAX_DETAIL_CHARS),
  };
}

/**
 * The `started` row of a delivery whose run is being inserted in the same batch (see
 * StartAlongside), with the agent's `last_event_at`: written only if the run's row is there when
 * the batch gets to it (a replayed event id or a full quota takes it back out). Their text is
 * built once (prepareOnce): a delivery builds no SQL.
 */
export function startedEventStatements(db: Db, event: NewAgentEvent & { executionId: string }): D1PreparedStatement[] {
  const row = eventRow({ ...event, outcome: "started" });
  const columns = getTableColumns(agentEvents);
  const values = Object.fromEntries(Object.entries(row).map(([key, value]) => [key, encodeFor(columns[key as keyof typeof columns], value)]));
  const d1 = db.$client;
  return [
    // eventRow gives every row the same fields, so the text built from the first row's fits all.
    prepareOnce(d1, "event:started", () => startedEventInsert(db, Object.keys(row)), values),
    prepareOnce(d1, "event:last-event-at", () => lastEventAtUpdate(db), { agentId: row.agentId, receivedAt: values.receivedAt }),
  ];
}

/** The insert of the fields `given` as named slots; a column not given keeps its default. */
function startedEventInsert(db: Db, given: string[]) {
  const slots = Object.fromEntries(given.map((key) => [key, slot(key)]));
  return db
    .insert(agentEvents)
    .select(sql`select ${insertSelectList(agentEvents, {}, slots)} where exists (select 1 from ${executions} where ${executions.id} = ${slot("executionId")})`)
    .toSQL();
}

const lastEventAtUpdate = (db: Db) =>
  db
    .update(agents)
    .set({ lastEventAt: slot("receivedAt") })
    .where(eq(agents.id, slot("agentId")))
    .toSQL();

/**
 * Records what happened to one delivery or poll, and when the agent last heard of an event
 * (`trigger.last_event_at`), in one round trip.
 */
export async function recordAgentEvent(db: Db, event: NewAgentEvent): Promise<void> {
  const row = eventRow(event);
  await db.batch([db.insert(agentEvents).values(row), db.update(agents).set({ lastEventAt: row.receivedAt }).where(eq(agents.id, row.agentId))]);
}

export const AgentEventSchema = z
  .object({
    id: z.string(),
    received_at: z.string().openapi({ format: "date-time" }),
    source: z.enum(["webhook", "poll", "schedule", "manual"]),
    outcome: z
      .enum(["started", "duplicate", "ignored", "rejected", "error", "skipped"])
      .openapi({ description: "`skipped`: refused by the workflow's rate_limit." }),
    event_type: z.string().nullable(),
    event_id: z.string().nullable(),
    execution_id: z.string().nullable(),
    detail: z.string().nullable().openapi({ description: "Why it was rejected, ignored or failed; never a secret." }),
  })
  .openapi("AgentEvent");

const EventCursor = z.object({ t: z.number().int(), id: z.string().max(40) });

/** One page of the agent's events, newest first. */
export async function listAgentEvents(ctx: ServiceContext, agentId: string, page: { limit: number; cursor?: string }) {
  const agent = await ctx.db
    .select({ id: agents.id })
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.userId, ctx.workspace.id)))
    .get();
  if (!agent) throw notFound("Agent");
  const after = decodeCursor(page.cursor, EventCursor);
  const rows = await ctx.db
    .select()
    .from(agentEvents)
    .where(
      and(
        eq(agentEvents.agentId, agent.id),
        after ? or(lt(agentEvents.receivedAt, new Date(after.t)), and(eq(agentEvents.receivedAt, new Date(after.t)), lt(agentEvents.id, after.id))) : undefined,
      ),
    )
    .orderBy(desc(agentEvents.receivedAt), desc(agentEvents.id))
    .limit(page.limit + 1)
    .all();
  const { page: shown, nextCursor } = paginate(rows, page.limit, (row) => ({ t: row.receivedAt.getTime(), id: row.id }));
  return { data: shown.map(presentEvent), next_cursor: nextCursor };
}

export function presentEvent(row: AgentEvent): z.infer<typeof AgentEventSchema> {
  return {
    id: row.id,
    received_at: row.receivedAt.toISOString(),
    source: row.source,
    outcome: row.outcome,
    event_type: row.eventType,
    event_id: row.eventId,
    execution_id: row.executionId,
    detail: row.detail,
  };
}

/** Housekeeping: events older than the retention are forgotten, a bounded batch per call. */
export async function forgetOldAgentEvents(db: Db, now = Date.now()): Promise<void> {
  await db.run(
    sql`DELETE FROM ${agentEvents} WHERE ${agentEvents.id} IN (SELECT ${agentEvents.id} FROM ${agentEvents} WHERE ${agentEvents.receivedAt} < ${now - EVENT_RETENTION_MS} LIMIT 5000)`,
  );
}
