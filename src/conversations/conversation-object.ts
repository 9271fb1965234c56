import { DurableObject } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import type { Env } from "../env";
import { delegatedContext, runtimeFor } from "../core/context";
import { conversations } from "../db/schema";
import { createDb } from "../db/client";
import { DeltaBuffer } from "./delta-buffer";
import { TurnMarkers } from "./turn-marker";
import { EventLog, sseFrame, type HeldEvent } from "./event-log";
import { StreamClients } from "./stream-clients";
import { interruptedAnswer, markListingIdle } from "./interrupted-turn";
import { MessageStore, type MessageRecord } from "./messages";
import { continueTurn, runTurn, type TurnInput } from "./orchestrator";
import { ApprovalWait, type Waiting } from "./approval-wait";
import type { ApprovalView } from "../approvals/present";
import { approvalsByIds, expireDue } from "../approvals/service";
import { titleFrom } from "./titles";
import { loggableError } from "../lib/safe-log";

/**
 * A live stream lasts at most this long: the credential is checked only when it opens, so a
 * stream must not outlive a revoked key or a sign-out for long. Clients reconnect (checked again,
 * and resumed with Last-Event-ID).
 */
export const LIVE_STREAM_MS = 5 * 60_000;
/** Live streams one conversation serves at once (API and dashboard together). */
export const MAX_LIVE_STREAMS = 20;
/**
 * Turns one conversation holds at once, running or waiting: a streamed send answers at once and
 * its turn goes on without the client, so without a bound a client could queue turns unbounded.
 */
export const MAX_PENDING_TURNS = 5;

/**
 * One object per conversation. It owns the message history and the numbered event log (its
 * SQLite storage), runs turns one after another (two messages sent at once are answered in
 * order, never interleaved), keeps the D1 index current, fans events out to every connected SSE
 * client, replays what a reconnecting client missed, and stops the running turn on request.
 * The turn itself is the agent loop's (orchestrator.ts → src/agent-loop/): this object only
 * stores, streams and replays what it produces.
 */
export class ConversationObject extends DurableObject<Env> {
  private store: MessageStore;
  private log: EventLog;
  /** The tail of the turn queue: each turn starts when the previous one has finished. */
  private turns: Promise<unknown> = Promise.resolve();
  private pendingTurns = 0;
  /** The last turn number given; numbers grow across restarts (they tag held events). */
  private lastTurn: number;
  private running: { turn: number; stop: AbortController } | null = null;
  private clients = new StreamClients();
  private markers: TurnMarkers;
  /** The turn that waits for approvals, if the last one ended so (DESIGN §6.2). */
  private wait: ApprovalWait;
  /** A continuation is queued: further wake-ups leave it be (the wait ends when it starts). */
  private continuing = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new MessageStore(ctx.storage.sql);
    this.log = new EventLog(ctx.storage.sql);
    this.lastTurn = Number(ctx.storage.sql.exec(`SELECT coalesce(max(turn), 0) AS turn FROM events`).one().turn);
    this.markers = new TurnMarkers(ctx.storage.sql);
    this.wait = new ApprovalWait(ctx.storage.sql);
    ctx.blockConcurrencyWhile(async () => {
      await this.endInterruptedTurns();
      // Decisions may have landed while this object was away (a restart between the decision and
      // its wake-up): look again soon, whatever the alarm was set to.
      if (this.wait.current()) await ctx.storage.setAlarm(Date.now() + 1000);
    });
  }

  /**
   * Runs a turn once every earlier turn has finished, and returns the assistant's message; with
   * MAX_PENDING_TURNS waiting or running already, refuses (`busy`) and stores nothing.
   */
  async send(input: TurnInput): Promise<MessageRecord | { busy: true } | { awaiting: string[] }> {
    const waiting = this.wait.current();
    if (waiting) return { awaiting: waiting.approvals };
    if (this.pendingTurns >= MAX_PENDING_TURNS) return { busy: true };
    return this.enqueue(input, ++this.lastTurn);
  }

  /**
   * Runs a turn as `send` does, answering at once with an SSE stream of that turn's events
   * (numbered like every event), which ends after its `turn_finished`. The turn goes on if the
   * client goes away.
   */
  sendStreaming(input: TurnInput): ReadableStream<Uint8Array> | { busy: true } | { awaiting: string[] } {
    const waiting = this.wait.current();
    if (waiting) return { awaiting: waiting.approvals };
    if (this.pendingTurns >= MAX_PENDING_TURNS) return { busy: true };
    const turn = ++this.lastTurn;
    const { readable } = this.clients.open({ closesAt: Number.POSITIVE_INFINITY, timer: null, turn });
    this.enqueue(input, turn).catch(() => undefined);
    return readable;
  }

  /** Stops the running turn (true), or says none is running (false). */
  stop(): boolean {
    if (!this.running) return false;
    this.running.stop.abort(new Error("Stopped by request."));
    return true;
  }

  messages(conversationId: number, options: { afterId?: number; limit?: number } = {}): MessageRecord[] {
    return this.store.list(conversationId, options);
  }

  /** The last `limit` messages, oldest first. */
  latestMessages(conversationId: number, limit: number): MessageRecord[] {
    return this.store.tail(conversationId, limit);
  }

  /**
   * The latest messages and where the event log stands, read in one synchronous stretch so they
   * agree: `last_event_id` is the newest event, and `turn_started_after` the id just before the
   * running turn's first event (null when no turn runs), from which a client that shows these
   * messages replays that turn's deltas and tool calls.
   */
  snapshot(
    conversationId: number,
    limit: number,
  ): {
    messages: MessageRecord[];
    message_count: number;
    status: "idle" | "processing" | "awaiting_approval";
    pending_turns: number;
    live_clients: number;
    last_event_id: number;
    turn_started_after: number | null;
  } {
    const first = this.running ? this.log.firstIdOf(this.running.turn) : null;
    return {
      messages: this.store.tail(conversationId, limit),
      message_count: this.store.count(),
      status: this.status(),
      pending_turns: this.pendingTurns,
      live_clients: this.clients.size,
      last_event_id: this.log.lastId(),
      turn_started_after: first === null ? null : first - 1,
    };
  }

  /**
   * An SSE byte stream of this conversation's events, open until the client goes away or
   * LIVE_STREAM_MS have passed. With `lastEventId`, every held event after it comes first, in
   * order, then live ones, with no gap and no repeat; an id older than what is held starts with
   * `reset` {oldest_id}. With MAX_LIVE_STREAMS open already, the seconds until the first of them
   * closes instead.
   */
  stream(conversationId: number, lastEventId?: number): ReadableStream<Uint8Array> | { retryAfterSeconds: number } {
    const live = this.clients.live();
    if (live.length >= MAX_LIVE_STREAMS) {
      const firstClose = Math.min(...live.map((l) => l.closesAt));
      return { retryAfterSeconds: Math.max(1, Math.ceil((firstClose - Date.now()) / 1000)) };
    }
    const { readable, writer } = this.clients.open({ closesAt: Date.now() + LIVE_STREAM_MS, timer: null, turn: null }, LIVE_STREAM_MS);
    // Read and written in one synchronous stretch: no event can be appended between the replay
    // and this client joining the live ones, so nothing is missed or sent twice.
    if (lastEventId !== undefined) {
      let after = lastEventId;
      const oldest = this.log.oldestId();
      if (oldest > 0 && lastEventId < oldest - 1) {
        // Numbered as the position it leaves the client at: just before the oldest event held.
        this.clients.write(writer, sseFrame({ id: oldest - 1, event: "reset", data: JSON.stringify({ oldest_id: oldest }) }));
        after = oldest - 1;
      }
      for (let page = this.log.after(after); page.length > 0; page = this.log.after(after)) {
        for (const event of page) this.clients.write(writer, sseFrame(event));
        after = page.at(-1)!.id;
      }
    }
    const lastId = this.log.lastId();
    const ready = { conversation_id: conversationId, status: this.status(), last_event_id: lastId };
    this.clients.write(writer, sseFrame({ id: lastId, event: "ready", data: JSON.stringify(ready) }));
    return readable;
  }

  /**
   * One of this conversation's approvals was decided (the API, Slack, an email link, the
   * dashboard): tell the clients, and go on with the waiting turn once all of its are decided.
   */
  async approvalDecided(approval: ApprovalView): Promise<void> {
    const waiting = this.wait.current();
    if (!waiting?.approvals.includes(approval.id)) return;
    this.emit(waiting.turn, "approval_decided", { approval });
    await this.goOnIfDecided();
  }

  /** The earliest expiry of a waiting turn's approvals (or a look after a restart). */
  async alarm(): Promise<void> {
    await this.goOnIfDecided();
  }

  /**
   * Reads the waiting turn's approvals: expired ones are written down as such (and told), and
   * once none is pending the turn goes on as a new turn of the queue, once: the wait ends when
   * that turn starts (in the same stretch as its marker), so a hub killed in between continues
   * it after the restart, and no second wake-up queues it twice. While some are pending, the
   * alarm is set for the first expiry.
   */
  private async goOnIfDecided(): Promise<void> {
    const waiting = this.wait.current();
    if (!waiting) return;
    const ctx = delegatedContext(runtimeFor(this.env), waiting.input.userId, waiting.input.credentialId);
    for (const approval of await expireDue(ctx, { conversationId: waiting.input.conversationId }))
      if (waiting.approvals.includes(approval.id)) this.emit(waiting.turn, "approval_decided", { approval });
    const decisions = await approvalsByIds(ctx, waiting.approvals);
    const pending = decisions.filter((approval) => approval.status === "pending");
    if (pending.length > 0) {
      await this.ctx.storage.setAlarm(Math.min(...pending.map((approval) => Date.parse(approval.expires_at))));
      return;
    }
    if (this.continuing) return;
    const message = this.store.waiting(waiting.input.conversationId);
    if (!message) {
      this.wait.clear(waiting);
      return;
    }
    this.continuing = true;
    this.pendingTurns++;
    const run = this.turns.then(() => this.runOne(waiting.input, ++this.lastTurn, { message, decisions }));
    this.turns = run.catch(() => undefined);
  }

  private status(): "idle" | "processing" | "awaiting_approval" {
    return this.pendingTurns > 0 ? "processing" : this.wait.current() ? "awaiting_approval" : "idle";
  }

  /** Forgets everything: messages, events, state and live clients. */
  async erase(): Promise<void> {
    this.running?.stop.abort(new Error("The conversation was deleted."));
    // Not awaited: a client that reads nothing must not hold up the deletion.
    this.clients.hangUpAll();
    await this.ctx.storage.deleteAll();
  }

  /**
   * Remembers a turn that ended waiting for approvals (it survives restarts in this object's
   * storage), and wakes at the first expiry. A decision landing before this is written is seen
   * then: the alarm looks at every approval of the turn.
   */
  private async beginWait(turn: number, input: TurnInput, reply: MessageRecord): Promise<void> {
    const waiting: Waiting = { turn, input: { ...input, content: "" }, messageId: reply.id, approvals: reply.pending_approvals ?? [] };
    this.wait.begin(waiting);
    await this.ctx.storage.setAlarm(Date.now() + 1000);
  }

  /**
   * Ends the turns this object was running when it was last stopped (a deploy, an eviction, the
   * hub killed): each gets an error answer recording the tool calls that finished (their results
   * are stored), and `turn_finished`; the listing is set idle. Nothing of the turn runs again.
   */
  private async endInterruptedTurns(): Promise<void> {
    const unfinished = this.markers.unfinished();
    if (unfinished.length === 0) return;
    const conversationId = this.conversationIdOf();
    for (const { turn, calls } of unfinished) {
      const answer = this.store.add(conversationId, interruptedAnswer(calls));
      this.emit(turn, "message", { message: answer });
      this.emit(turn, "status", { status: "idle" });
      this.emit(turn, "turn_finished", { message_id: answer.id, status: "error" });
      this.markers.end(turn);
    }
    if (conversationId > 0) await markListingIdle(this.env.DB, conversationId, this.store.count());
  }

  /** The conversation's id, as its stored messages know it (0 before any). */
  private conversationIdOf(): number {
    const row = this.ctx.storage.sql.exec(`SELECT value FROM meta WHERE key = 'conversation_id'`).toArray()[0];
    return row ? Number(row.value) : 0;
  }

  private enqueue(input: TurnInput, turn: number): Promise<MessageRecord | { awaiting: string[] }> {
    this.pendingTurns++;
    // runOne takes its turn off pendingTurns as it ends (before recording it), not here.
    const run = this.turns.then(async () => {
      // A turn queued behind one that ended waiting for approvals is refused as a send then would
      // be: run, it would answer in the middle of the waiting turn, and the waiting turn would
      // never go on (its approved calls never run).
      const waiting = this.wait.current();
      if (!waiting) return this.runOne(input, turn);
      this.pendingTurns--;
      // The turn before wrote the listing while this one still counted as pending.
      await createDb(this.env.DB)
        .update(conversations)
        .set({ state: this.status(), updatedAt: new Date() })
        .where(eq(conversations.id, input.conversationId))
        .catch((error) => console.error(JSON.stringify({ level: "error", message: "conversation index update failed", error: loggableError(error) })));
      this.emit(turn, "status", { status: this.status() });
      this.emit(turn, "turn_finished", { message_id: null, status: "awaiting_approval" });
      return { awaiting: waiting.approvals };
    });
    this.turns = run.catch(() => undefined);
    return run;
  }

  /** Holds an event in the log and sends it to every client that takes it. */
  private emit(turn: number, event: string, data: unknown): void {
    const held: HeldEvent = this.log.append(turn, event, data);
    this.clients.broadcast(turn, event, held);
  }

  /** Runs a turn: a new message's, or (with `continuing`) a waiting one's once its approvals are decided. */
  private async runOne(input: TurnInput, turn: number, continuing?: { message: MessageRecord; decisions: ApprovalView[] }): Promise<MessageRecord> {
    // Each turn is one unit of work: its own runtime, acting for the user with the credential
    // that sent the message.
    // Records written after each tool call (audit, connection health) are awaited with the turn.
    const records: Promise<unknown>[] = [];
    const ctx = delegatedContext(runtimeFor(this.env, { waitUntil: (work) => records.push(work) }), input.userId, input.credentialId);
    const { db } = ctx;
    const stop = new AbortController();
    this.running = { turn, stop };
    let reply: MessageRecord | undefined;
    let listed: Promise<void> = Promise.resolve();
    // Deltas are joined into fewer events; whatever waits goes before the turn's next event.
    const deltas = new DeltaBuffer((delta) => this.emit(turn, "delta", delta));
    this.ctx.storage.sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('conversation_id', ?)`, input.conversationId);
    if (continuing) {
      // From here the turn is a running one: a restart ends it as interrupted, not as waiting.
      const waiting = this.wait.current();
      if (waiting) this.wait.clear(waiting);
      this.continuing = false;
    }
    this.markers.begin(turn);
    const emit = (event: string, data: unknown) => {
      deltas.flush();
      this.emit(turn, event, data);
    };
    try {
      this.emit(turn, "status", { status: "processing" });
      // coalesce: a title set meanwhile (PATCH) is never overwritten by the generated one. Written
      // beside the turn, not before it: the first token does not wait for the listing.
      listed = db
        .update(conversations)
        .set({ state: "processing", title: sql`coalesce(${conversations.title}, ${titleFrom(input.content)})`, updatedAt: new Date() })
        .where(eq(conversations.id, input.conversationId))
        .then(
          () => undefined,
          // Only the listing: the turn goes on, and the update after it writes the state again.
          (error) =>
            console.error(
              JSON.stringify({
                level: "error",
                message: "conversation index update failed",
                conversation_id: input.conversationId,
                error: loggableError(error),
              }),
            ),
        );
      const events = {
        message: (record: MessageRecord) => emit("message", { message: record }),
        delta: (event: { round: number; text: string }) => deltas.add(event.round, event.text),
        toolStarted: (event: unknown) => emit("tool_started", event),
        toolProgress: (event: unknown) => emit("tool_progress", event),
        toolFinished: (event: unknown) => emit("tool_finished", event),
        callRecorded: (call: Parameters<TurnMarkers["recordCall"]>[1]) => this.markers.recordCall(turn, call),
        approvalRequested: (approval: ApprovalView) => emit("approval_requested", { approval }),
      };
      reply = continuing
        ? await continueTurn(ctx, this.store, input, { ...continuing, claim: (id) => this.wait.claimRun(id) }, events, stop.signal)
        : await runTurn(ctx, this.store, input, events, stop.signal);
      if (reply.status === "awaiting_approval") await this.beginWait(turn, input, reply);
      return reply;
    } finally {
      deltas.flush();
      this.markers.end(turn);
      this.running = null;
      // Over as soon as its answer is stored: a snapshot or a `ready` read while the records below
      // are written must not say a turn is still running, or a client would wait for its events.
      this.pendingTurns--;
      // The turn is done and stored: failing to update the listing must not turn it into an
      // error that invites a retry (and repeated tool calls).
      await listed;
      await db
        .update(conversations)
        .set({
          state: this.status(),
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
      this.emit(turn, "status", { status: this.status() });
      this.emit(turn, "turn_finished", { message_id: reply?.id ?? null, status: reply?.status ?? "error" });
      this.log.prune(0);
      await Promise.allSettled(records);
    }
  }
}
