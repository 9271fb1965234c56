import { and, asc, eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { ServiceContext } from "../core/context";
import { notFound } from "../core/errors";
import { conversations, traceSpans } from "../db/schema";
import { loggableError } from "../lib/safe-log";
import { type Span, bounded } from "./spans";

/** Rows per INSERT: 13 columns each, under D1's 100 bound parameters per statement. */
const ROWS_PER_INSERT = 7;

export interface SpanOwner {
  userId: number;
  conversationId?: number | null;
  messageId?: number | null;
  executionId?: string | null;
}

/**
 * Writes a trace's spans (at most MAX_SPANS_PER_TRACE) in one D1 batch. Never throws: a trace
 * that cannot be stored is logged (without its attributes) and the turn or run goes on.
 */
export async function storeSpans(ctx: Pick<ServiceContext, "db">, spans: Span[], owner: SpanOwner): Promise<boolean> {
  const rows = bounded(spans).map((span) => ({
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    name: span.name,
    kind: span.kind,
    startMs: span.startMs,
    endMs: span.endMs,
    status: span.status,
    attributes: span.attributes,
    userId: owner.userId,
    conversationId: owner.conversationId ?? null,
    messageId: owner.messageId ?? null,
    executionId: owner.executionId ?? null,
  }));
  if (rows.length === 0) return true;
  const inserts: BatchItem<"sqlite">[] = [];
  for (let at = 0; at < rows.length; at += ROWS_PER_INSERT) inserts.push(ctx.db.insert(traceSpans).values(rows.slice(at, at + ROWS_PER_INSERT)));
  try {
    await ctx.db.batch(inserts as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
    return true;
  } catch (error) {
    console.error(
      JSON.stringify({
        level: "error",
        message: "trace not stored",
        trace_id: rows[0]!.traceId,
        conversation_id: owner.conversationId ?? null,
        execution_id: owner.executionId ?? null,
        error: loggableError(error),
      }),
    );
    return false;
  }
}

/**
 * The trace of an assistant message of one of the caller's conversations, root first. Another
 * user's conversation, and a message with no trace (a user's message, one stored before traces),
 * are 404.
 */
export async function messageTrace(ctx: ServiceContext, conversationId: number, messageId: number): Promise<Span[]> {
  const owned = await ctx.db
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(eq(conversations.id, conversationId), eq(conversations.userId, ctx.workspace.id)))
    .get();
  if (!owned) throw notFound("Conversation");
  const rows = await ctx.db
    .select()
    .from(traceSpans)
    .where(and(eq(traceSpans.conversationId, conversationId), eq(traceSpans.messageId, messageId), eq(traceSpans.userId, ctx.workspace.id)))
    .orderBy(asc(traceSpans.startMs))
    .limit(2 * 500)
    .all();
  if (rows.length === 0) throw notFound("Trace");
  // One trace per message; should there ever be two, the newest root's is the message's.
  const roots = rows.filter((row) => row.parentSpanId === null);
  const traceId = (roots.at(-1) ?? rows[0]!).traceId;
  const spans: Span[] = rows
    .filter((row) => row.traceId === traceId)
    .map((row) => ({
      traceId: row.traceId,
      spanId: row.spanId,
      parentSpanId: row.parentSpanId,
      name: row.name,
      kind: row.kind === 3 ? 3 : 1,
      startMs: row.startMs,
      endMs: row.endMs,
      status: row.status,
      attributes: row.attributes,
    }));
  return [...spans.filter((s) => s.parentSpanId === null), ...spans.filter((s) => s.parentSpanId !== null)];
}
