import { type HeldEvent, sseFrame } from "./event-log";

const encoder = new TextEncoder();

/** One connected SSE client of a conversation. */
export interface StreamClient {
  /** When a live stream closes; a send's stream closes with its turn instead. */
  closesAt: number;
  timer: ReturnType<typeof setTimeout> | null;
  /** A send's stream carries only its own turn, and ends after that turn's `turn_finished`. */
  turn: number | null;
}

type Writer = WritableStreamDefaultWriter<Uint8Array>;

/**
 * The SSE clients connected to one conversation object: each opened stream, what it takes (every
 * turn's events, or one turn's), writes that forget a client that went away, and the fan-out of
 * each held event.
 */
export class StreamClients {
  private clients = new Map<Writer, StreamClient>();

  get size(): number {
    return this.clients.size;
  }

  /** The live streams (not a send's own), with when each closes. */
  live(): StreamClient[] {
    return [...this.clients.values()].filter((client) => client.turn === null);
  }

  /** A new stream for `client`, already told how to reconnect; `closeAfterMs` hangs it up then. */
  open(client: StreamClient, closeAfterMs?: number): { readable: ReadableStream<Uint8Array>; writer: Writer } {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    this.clients.set(writer, client);
    if (closeAfterMs !== undefined) client.timer = setTimeout(() => this.hangUp(writer), closeAfterMs);
    // A client that goes away errors the stream: its place is free at once.
    writer.closed.catch(() => this.forget(writer));
    this.write(writer, `: connected\nretry: 3000\n\n`);
    return { readable, writer };
  }

  write(writer: Writer, text: string): void {
    // A client that went away fails the write; forget it.
    writer.write(encoder.encode(text)).catch(() => this.forget(writer));
  }

  /** Sends a held event to every client that takes it; a send's stream ends with its turn. */
  broadcast(turn: number, event: string, held: HeldEvent): void {
    const frame = sseFrame(held);
    for (const [writer, client] of this.clients) {
      if (client.turn !== null && client.turn !== turn) continue;
      this.write(writer, frame);
      if (client.turn === turn && event === "turn_finished") void this.hangUp(writer);
    }
  }

  /** Ends every stream (the conversation is erased). */
  hangUpAll(): void {
    for (const writer of [...this.clients.keys()]) void this.hangUp(writer);
  }

  /** Ends a stream (the client sees its end after what was sent). */
  private async hangUp(writer: Writer): Promise<void> {
    this.forget(writer);
    await writer.close().catch(() => undefined);
  }

  private forget(writer: Writer): void {
    const timer = this.clients.get(writer)?.timer;
    if (timer) clearTimeout(timer);
    this.clients.delete(writer);
  }
}
