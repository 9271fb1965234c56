/** Deltas closer together than this are sent as one (the first of a burst goes at once). */
export const DELTA_FLUSH_MS = 50;

/**
 * Joins a model's text deltas into fewer events: a provider may stream one character per chunk,
 * and every event is held in the log and replayed to reconnecting clients. The first delta after
 * a quiet spell is sent at once (time to first token is not delayed); the ones that follow within
 * DELTA_FLUSH_MS wait and go as one. `flush` sends what waits, before any other event of the turn,
 * so events keep their order; joined, the sent texts equal the deltas given.
 */
export class DeltaBuffer {
  private pending: { round: number; text: string } | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastSent = 0;

  constructor(private readonly send: (delta: { round: number; text: string }) => void) {}

  add(round: number, text: string): void {
    if (this.pending && this.pending.round !== round) this.flush();
    if (!this.pending && Date.now() - this.lastSent >= DELTA_FLUSH_MS) {
      this.lastSent = Date.now();
      this.send({ round, text });
      return;
    }
    if (this.pending) this.pending.text += text;
    else this.pending = { round, text };
    this.timer ??= setTimeout(() => this.flush(), DELTA_FLUSH_MS);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const pending = this.pending;
    this.pending = null;
    if (!pending) return;
    this.lastSent = Date.now();
    this.send(pending);
  }
}
