/**
 * The conversation's live events, numbered and held in its Durable Object's SQLite storage, so a
 * client that lost its connection resumes with `Last-Event-ID` without a gap or a repeat. At least
 * the last HELD_EVENTS events and every event of the turn in progress are held; older ones go.
 */

/** Events held at least (DESIGN §6.1: the last 1,000, and the turn in progress whatever its size). */
export const HELD_EVENTS = 1_000;
/** Events replayed per read; a client that is further behind reads again from where it got to. */
const READ_PAGE = 500;

export interface HeldEvent {
  id: number;
  turn: number;
  event: string;
  data: string;
}

export class EventLog {
  private appended = 0;

  constructor(private sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS events (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      turn INTEGER NOT NULL,
      event TEXT NOT NULL,
      data TEXT NOT NULL
    )`);
  }

  /** Holds an event of `turn` (0: none) and answers it with its id. */
  append(turn: number, event: string, data: unknown): HeldEvent {
    const text = JSON.stringify(data);
    const row = this.sql.exec(`INSERT INTO events (turn, event, data) VALUES (?, ?, ?) RETURNING id`, turn, event, text).one();
    // Pruned now and then rather than on every event: a turn streams many deltas.
    if (++this.appended % 100 === 0) this.prune(turn);
    return { id: Number(row.id), turn, event, data: text };
  }

  /** The newest id (0 before the first event). */
  lastId(): number {
    return Number(this.sql.exec(`SELECT coalesce(max(id), 0) AS id FROM events`).one().id);
  }

  /** The first id held of `turn`, or null when it has none. */
  firstIdOf(turn: number): number | null {
    const id = this.sql.exec(`SELECT min(id) AS id FROM events WHERE turn = ?`, turn).one().id;
    return id === null ? null : Number(id);
  }

  /** The oldest id still held (0 when none is). */
  oldestId(): number {
    return Number(this.sql.exec(`SELECT coalesce(min(id), 0) AS id FROM events`).one().id);
  }

  /** Held events after `afterId`, oldest first, at most a page. */
  after(afterId: number): HeldEvent[] {
    return this.sql
      .exec(`SELECT id, turn, event, data FROM events WHERE id > ? ORDER BY id LIMIT ?`, afterId, READ_PAGE)
      .toArray()
      .map((row) => ({ id: Number(row.id), turn: Number(row.turn), event: String(row.event), data: String(row.data) }));
  }

  /** Forgets events older than the last HELD_EVENTS, except those of the turn in progress (0: none is). */
  prune(currentTurn: number): void {
    this.sql.exec(`DELETE FROM events WHERE id <= (SELECT max(id) FROM events) - ? AND (? = 0 OR turn != ?)`, HELD_EVENTS, currentTurn, currentTurn);
  }
}

/** One server-sent event as sent on the wire. */
export const sseFrame = (event: { id?: number; event: string; data: string }) =>
  `${event.id === undefined ? "" : `id: ${event.id}\n`}event: ${event.event}\ndata: ${event.data}\n\n`;
