/** Keys remembered at least, beyond those the latest poll returned. */
export const REMEMBERED_KEYS = 10_000;

/** A batch started but not yet remembered: redone (under the same idempotency key) first after a crash. */
export interface PendingBatch {
  key: string;
  itemKeys: string[];
  items: unknown[];
}

/**
 * What a polling agent remembers, in its Durable Object's own SQLite storage: the keys of the
 * items it has seen, when each was last returned, and whether the first poll of the current
 * trigger has set the baseline. Writes are synchronous and durable before the object's next
 * outgoing call, so a key remembered is never forgotten by a crash.
 */
export class PollKeys {
  constructor(private readonly sql: SqlStorage) {
    sql.exec("CREATE TABLE IF NOT EXISTS poll_keys (key TEXT PRIMARY KEY, last_poll INTEGER NOT NULL)");
    sql.exec("CREATE INDEX IF NOT EXISTS poll_keys_last_poll ON poll_keys (last_poll)");
    sql.exec("CREATE TABLE IF NOT EXISTS poll_state (id INTEGER PRIMARY KEY CHECK (id = 1), trigger TEXT NOT NULL, poll_seq INTEGER NOT NULL, pending TEXT)");
  }

  private state(): { trigger: string; poll_seq: number; pending: string | null } | undefined {
    return this.sql
      .exec<{ trigger: string; poll_seq: number; pending: string | null }>("SELECT trigger, poll_seq, pending FROM poll_state WHERE id = 1")
      .toArray()[0];
  }

  /** Whether a poll of this trigger (its fingerprint) has set the baseline already. */
  isBaselined(trigger: string): boolean {
    return this.state()?.trigger === trigger;
  }

  /**
   * Starts remembering for a new trigger (another tool or arguments read other items): the keys
   * of the old one are dropped, and the next successful poll is a baseline again.
   */
  beginPoll(trigger: string): number {
    const state = this.state();
    if (state && state.trigger !== trigger) {
      // Keys and baseline go together: a trigger changed back later sets its baseline again
      // rather than finding itself baselined with none of its keys.
      this.clear();
      return 1;
    }
    const seq = (state?.poll_seq ?? 0) + 1;
    if (state) this.sql.exec("UPDATE poll_state SET poll_seq = ? WHERE id = 1", seq);
    return seq;
  }

  /** The baseline: every key of the first poll is remembered, for this trigger. */
  setBaseline(trigger: string, keys: string[], seq: number): void {
    this.sql.exec("DELETE FROM poll_keys");
    this.remember(keys, seq);
    this.sql.exec(
      "INSERT INTO poll_state (id, trigger, poll_seq, pending) VALUES (1, ?, ?, NULL) ON CONFLICT (id) DO UPDATE SET trigger = excluded.trigger, poll_seq = excluded.poll_seq, pending = NULL",
      trigger,
      seq,
    );
  }

  /** Of `keys`, those not seen before, in the order given. */
  unseen(keys: string[]): string[] {
    if (keys.length === 0) return [];
    const known = new Set(
      this.sql
        .exec<{ key: string }>("SELECT key FROM poll_keys WHERE key IN (SELECT value FROM json_each(?))", JSON.stringify(keys))
        .toArray()
        .map((row) => row.key),
    );
    return keys.filter((key) => !known.has(key));
  }

  /** Marks keys seen (or still returned) by poll `seq`. */
  remember(keys: string[], seq: number): void {
    if (keys.length === 0) return;
    this.sql.exec(
      "INSERT INTO poll_keys (key, last_poll) SELECT value, ? FROM json_each(?) WHERE true ON CONFLICT (key) DO UPDATE SET last_poll = excluded.last_poll",
      seq,
      JSON.stringify(keys),
    );
  }

  /**
   * Forgets the keys least recently returned beyond REMEMBERED_KEYS. Keys the latest poll
   * returned are never forgotten (the caller marked them with `seq`): an item still in the feed
   * can never come back as new.
   */
  prune(seq: number): void {
    this.sql.exec(`DELETE FROM poll_keys WHERE last_poll < ? AND key NOT IN (SELECT key FROM poll_keys ORDER BY last_poll DESC LIMIT ${REMEMBERED_KEYS})`, seq);
  }

  pendingBatch(): PendingBatch | null {
    const pending = this.state()?.pending;
    return pending ? (JSON.parse(pending) as PendingBatch) : null;
  }

  setPendingBatch(batch: PendingBatch | null): void {
    this.sql.exec("UPDATE poll_state SET pending = ? WHERE id = 1", batch ? JSON.stringify(batch) : null);
  }

  /** How many keys are remembered (for tests and the events log). */
  count(): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM poll_keys").one().n;
  }

  /** The trigger is gone (disarmed or changed type): nothing to remember. */
  clear(): void {
    this.sql.exec("DELETE FROM poll_keys");
    this.sql.exec("DELETE FROM poll_state");
  }
}
