import type { TurnInput } from "./orchestrator";

/** A turn that ended waiting for approvals: what it needs to go on once they are decided. */
export interface Waiting {
  /** The turn number its events carry (approval_decided is told under it). */
  turn: number;
  /** Who sent the message and with which provider: the continuation runs as them. */
  input: TurnInput;
  messageId: number;
  approvals: string[];
}

/**
 * The conversation's waiting turn, in its Durable Object's SQLite storage so it survives the hub
 * being killed, and the approved calls that were started (so a restart mid-call never runs a
 * person's approved call twice).
 */
export class ApprovalWait {
  constructor(private sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS approval_wait (id INTEGER PRIMARY KEY CHECK (id = 1), value TEXT NOT NULL)`);
    sql.exec(`CREATE TABLE IF NOT EXISTS approval_runs (approval_id TEXT PRIMARY KEY)`);
  }

  current(): Waiting | null {
    const row = this.sql.exec(`SELECT value FROM approval_wait WHERE id = 1`).toArray()[0];
    return row ? (JSON.parse(String(row.value)) as Waiting) : null;
  }

  begin(waiting: Waiting): void {
    this.sql.exec(`INSERT OR REPLACE INTO approval_wait (id, value) VALUES (1, ?)`, JSON.stringify(waiting));
  }

  /** Ends the wait it was read as; false when another wake-up ended it first. */
  clear(waiting: Waiting): boolean {
    const current = this.current();
    if (!current || current.messageId !== waiting.messageId) return false;
    this.sql.exec(`DELETE FROM approval_wait WHERE id = 1`);
    return true;
  }

  /** Claims the one run an approved call gets: false when it was started before (and the hub restarted). */
  claimRun(approvalId: string): boolean {
    return this.sql.exec(`INSERT OR IGNORE INTO approval_runs (approval_id) VALUES (?) RETURNING approval_id`, approvalId).toArray().length > 0;
  }
}
