import type { ToolCallRecord } from "./messages";

/**
 * What the conversation's object knows of a turn while it runs, kept in its storage: if the object
 * is stopped mid-turn (a deploy, an eviction, the hub killed), the next start finds the turn
 * unfinished and ends it properly (an error answer that records the tool calls that finished, so
 * the model later sees what was already done, and `turn_finished` for its clients).
 */
export class TurnMarkers {
  constructor(private sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS running_turns (turn INTEGER PRIMARY KEY, calls TEXT NOT NULL DEFAULT '[]')`);
    // The conversation's id, for an answer written when no request names it (after a restart).
    sql.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  }

  begin(turn: number): void {
    this.sql.exec(`INSERT OR REPLACE INTO running_turns (turn, calls) VALUES (?, '[]')`, turn);
  }

  /** A call of the turn that finished (its result is stored as a tool message). */
  recordCall(turn: number, call: ToolCallRecord): void {
    this.sql.exec(`UPDATE running_turns SET calls = json_insert(calls, '$[#]', json(?)) WHERE turn = ?`, JSON.stringify(call), turn);
  }

  end(turn: number): void {
    this.sql.exec(`DELETE FROM running_turns WHERE turn = ?`, turn);
  }

  /** Turns that were running when the object last stopped, oldest first. */
  unfinished(): { turn: number; calls: ToolCallRecord[] }[] {
    return this.sql
      .exec(`SELECT turn, calls FROM running_turns ORDER BY turn`)
      .toArray()
      .map((row) => ({ turn: Number(row.turn), calls: JSON.parse(String(row.calls)) as ToolCallRecord[] }));
  }
}
