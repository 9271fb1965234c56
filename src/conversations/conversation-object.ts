import { DurableObject } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import type { Env } from "../env";
import { delegatedContext, runtimeFor } from "../core/context";
import { conversations } from "../db/schema";
import { MessageStore, type MessageRecord } from "./messages";
import { runTurn, type TurnInput } from "./orchestrator";
import { titleFrom } from "./titles";
import { loggableError } from "../lib/safe-log";

const encoder = new TextEncoder();

/**
 * A live stream lasts at most this long: the credential is checked only when it opens, so a
 * stream must not outlive a revoked key or a sign-out for long. Clients reconnect (checked again).
 */
export const LIVE_STREAM_MS = 5 * 60_000;
/** Live streams one conversation serves at once (API and dashboard together). */
export const MAX_LIVE_STREAMS = 20;

/**
 * One object per conversation. It owns the message history (its SQLite storage), runs turns one
 * after another (two messages sent at once are answered in order, never interleaved), keeps the
 * D1 index current, and fans live events out to every connected SSE client.
 */
export class ConversationObject extends DurableObject<Env> {
  private store: MessageStore;
  /** The tail of the turn queue: each turn starts when the previous one has finished. */
  private turns: Promise<unknown> = Promise.resolve();
  private pendingTurns = 0;
  /** Each live client, with when its stream closes. */
  private listeners = new Map<WritableStreamDefaultWriter<Uint8Array>, { closesAt: number; timer: ReturnType<typeof setTimeout> }>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new MessageStore(ctx.storage.sql);
  }

  /** Runs a turn once every earlier turn has finished, and returns the assistant's message. */
  async send(input: TurnInput): Promise<MessageRecord> {
    this.pendingTurns++;
    const turn = this.turns.then(() => this.runOne(input));
    this.turns = turn.catch(() => undefined);
    try {
      return await turn;
    } finally {
      this.pendingTurns--;
    }
  }

  messages(conversationId: number, options: { afterId?: number; limit?: number } = {}): MessageRecord[] {
    return this.store.list(conversationId, options);
  }

  /** The last `limit` messages, oldest first. */
  latestMessages(conversationId: number, limit: number): MessageRecord[] {
    return this.store.tail(conversationId, limit);
  }

  snapshot(
    conversationId: number,
    limit: number,
  ): { messages: MessageRecord[]; message_count: number; status: "idle" | "processing"; pending_turns: number; live_clients: number } {
    return {
      messages: this.store.tail(conversationId, limit),
      message_count: this.store.count(),
      status: this.pendingTurns > 0 ? "processing" : "idle",
      pending_turns: this.pendingTurns,
      live_clients: this.listeners.size,
    };
  }

  /**
   * An SSE byte stream of this conversation's live events, open until the client goes away or
   * LIVE_STREAM_MS have passed. With MAX_LIVE_STREAMS open already, the seconds until the first
   * of them closes instead.
   */
  stream(conversationId: number): ReadableStream<Uint8Array> | { retryAfterSeconds: number } {
    if (this.listeners.size >= MAX_LIVE_STREAMS) {
      const firstClose = Math.min(...[...this.listeners.values()].map((l) => l.closesAt));
      return { retryAfterSeconds: Math.max(1, Math.ceil((firstClose - Date.now()) / 1000)) };
    }
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const timer = setTimeout(() => this.hangUp(writer), LIVE_STREAM_MS);
    this.listeners.set(writer, { closesAt: Date.now() + LIVE_STREAM_MS, timer });
    // A client that goes away errors the stream: its place is free at once.
    writer.closed.catch(() => this.forget(writer));
    void writer.write(encoder.encode(`: connected\nretry: 3000\n\n`)).catch(() => this.forget(writer));
    this.emit("ready", { conversation_id: conversationId, status: this.pendingTurns > 0 ? "processing" : "idle" }, writer);
    return readable;
  }

  /** Forgets everything: messages, state and live clients. */
  async erase(): Promise<void> {
    // Not awaited: a client that reads nothing must not hold up the deletion.
    for (const writer of [...this.listeners.keys()]) void this.hangUp(writer);
    await this.ctx.storage.deleteAll();
  }

  /** Ends a live stream (the client sees its end after what was sent). */
  private async hangUp(writer: WritableStreamDefaultWriter<Uint8Array>): Promise<void> {
    this.forget(writer);
    await writer.close().catch(() => undefined);
  }

  private forget(writer: WritableStreamDefaultWriter<Uint8Array>): void {
    clearTimeout(this.listeners.get(writer)?.timer ?? null);
    this.listeners.delete(writer);
  }

  private async runOne(input: TurnInput): Promise<MessageRecord> {
    // Each turn is one unit of work: its own runtime, acting for the user with the credential
    // that sent the message.
    // Records written after each tool call (audit, connection health) are awaited with the turn.
    const records: Promise<unknown>[] = [];
    const ctx = delegatedContext(runtimeFor(this.env, { waitUntil: (work) => records.push(work) }), input.userId, input.credentialId);
    const { db } = ctx;
    // coalesce: a title set meanwhile (PATCH) is never overwritten by the generated one.
    await db
      .update(conversations)
      .set({ state: "processing", title: sql`coalesce(${conversations.title}, ${titleFrom(input.content)})`, updatedAt: new Date() })
      .where(eq(conversations.id, input.conversationId));
    this.emit("status", { status: "processing" });
    let reply: MessageRecord | undefined;
    try {
      reply = await runTurn(ctx, this.store, input, {
        message: (record) => this.emit("message", record),
        toolStarted: (event) => this.emit("tool_started", event),
        toolProgress: (event) => this.emit("tool_progress", event),
      });
      return reply;
    } finally {
      // The turn is done and stored: failing to update the listing must not turn it into an
      // error that invites a retry (and repeated tool calls).
      await db
        .update(conversations)
        .set({
          state: this.pendingTurns > 1 ? "processing" : "idle",
          messageCount: this.store.count(),
          lastMessagePreview: reply ? (reply.content || reply.error_message || "").slice(0, 200) : null,
          updatedAt: new Date(),
        })
        .where(eq(conversations.id, input.conversationId))
        .catch((error) =>
          console.error(
            JSON.stringify({ level: "error", message: "conversation index update failed", conversation_id: input.conversationId, error: loggableError(error) }),
          ),
        );
      this.emit("status", { status: this.pendingTurns > 1 ? "processing" : "idle" });
      await Promise.allSettled(records);
    }
  }

  private emit(event: string, data: unknown, only?: WritableStreamDefaultWriter<Uint8Array>): void {
    const frame = encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    for (const writer of only ? [only] : this.listeners.keys()) {
      // A client that went away fails the write; forget it.
      writer.write(frame).catch(() => this.forget(writer));
    }
  }
}
