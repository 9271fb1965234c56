/** A stored message, as the API returns it (SPEC: Message). */
export interface MessageRecord {
  id: number;
  conversation_id: number;
  role: "user" | "assistant" | "tool" | "system";
  content: string;
  /**
   * received (a user message), completed, error, stopped (an answer cut short by a stop: the
   * text produced so far), or summary (a `system` message replacing older history for the model).
   */
  status: "received" | "completed" | "error" | "stopped" | "summary";
  tokens_used: number;
  tools_called: ToolCallRecord[];
  tool_call_id: string | null;
  error_message: string | null;
  provider: string | null;
  model: string | null;
  created_at: string;
}

/** One tool call of an assistant turn (SPEC: tools_called items). */
export interface ToolCallRecord {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Which model round asked for it (1-based); rounds rebuild the history faithfully. */
  round: number;
  success: boolean;
  error_message: string | null;
  duration_ms: number;
  call_id: string | null;
}

export type NewMessage = Omit<MessageRecord, "id" | "conversation_id" | "created_at">;

type Row = Record<string, SqlStorageValue>;

const EMPTY_FIELDS = { tokens_used: 0, tools_called: [], tool_call_id: null, error_message: null, provider: null, model: null };

/** Messages one page holds when the caller names no `limit`. */
export const DEFAULT_MESSAGE_PAGE = 100;

/** The conversation's messages in its Durable Object's SQLite storage. */
export class MessageStore {
  constructor(private sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS messages (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      role TEXT NOT NULL,
      content TEXT NOT NULL,
      status TEXT NOT NULL,
      tokens_used INTEGER NOT NULL DEFAULT 0,
      tools_called TEXT NOT NULL DEFAULT '[]',
      tool_call_id TEXT,
      error_message TEXT,
      provider TEXT,
      model TEXT,
      created_at TEXT NOT NULL
    )`);
    // A summary replaces, for the model, every message up to this id (the rest of the API keeps them all).
    const columns = sql.exec(`PRAGMA table_info(messages)`).toArray();
    if (!columns.some((c) => c.name === "covers_through")) sql.exec(`ALTER TABLE messages ADD COLUMN covers_through INTEGER`);
  }

  /** Stores a summary of every message up to `coversThrough` (DESIGN §6.1 compaction). */
  addSummary(conversationId: number, content: string, coversThrough: number): MessageRecord {
    const record = this.add(conversationId, { ...EMPTY_FIELDS, role: "system", content, status: "summary" });
    this.sql.exec(`UPDATE messages SET covers_through = ? WHERE id = ?`, coversThrough, record.id);
    return record;
  }

  /**
   * What a turn replays: the newest summary (if any) and the messages after what it covers, at
   * most `limit` of them, oldest first (summaries themselves are not replayed twice).
   */
  replay(conversationId: number, limit: number): { summary: MessageRecord | null; messages: MessageRecord[] } {
    const summaryRow = this.sql.exec(`SELECT * FROM messages WHERE status = 'summary' ORDER BY id DESC LIMIT 1`).toArray()[0];
    const after = summaryRow ? Number(summaryRow.covers_through ?? 0) : 0;
    const rows = this.sql
      .exec(`SELECT * FROM (SELECT * FROM messages WHERE id > ? AND status != 'summary' ORDER BY id DESC LIMIT ?) ORDER BY id`, after, limit)
      .toArray();
    return { summary: summaryRow ? this.toRecord(conversationId, summaryRow) : null, messages: rows.map((row) => this.toRecord(conversationId, row)) };
  }

  add(conversationId: number, message: NewMessage): MessageRecord {
    const createdAt = new Date().toISOString();
    const row = this.sql
      .exec(
        `INSERT INTO messages (role, content, status, tokens_used, tools_called, tool_call_id, error_message, provider, model, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        message.role,
        message.content,
        message.status,
        message.tokens_used,
        JSON.stringify(message.tools_called),
        message.tool_call_id,
        message.error_message,
        message.provider,
        message.model,
        createdAt,
      )
      .one();
    return { ...message, id: Number(row.id), conversation_id: conversationId, created_at: createdAt };
  }

  /** Chronological, one page: `limit` (default DEFAULT_MESSAGE_PAGE) messages after `afterId` (default: from the first). */
  list(conversationId: number, options: { afterId?: number; limit?: number } = {}): MessageRecord[] {
    const rows = this.sql
      .exec(`SELECT * FROM messages WHERE id > ? ORDER BY id LIMIT ?`, options.afterId ?? 0, options.limit ?? DEFAULT_MESSAGE_PAGE)
      .toArray();
    return rows.map((row) => this.toRecord(conversationId, row));
  }

  /** The last `limit` messages, oldest first. */
  tail(conversationId: number, limit: number): MessageRecord[] {
    const rows = this.sql.exec(`SELECT * FROM (SELECT * FROM messages ORDER BY id DESC LIMIT ?) ORDER BY id`, limit).toArray();
    return rows.map((row) => this.toRecord(conversationId, row));
  }

  count(): number {
    return Number(this.sql.exec(`SELECT COUNT(*) AS n FROM messages`).one().n);
  }

  private toRecord(conversationId: number, row: Row): MessageRecord {
    return {
      id: Number(row.id),
      conversation_id: conversationId,
      role: row.role as MessageRecord["role"],
      content: String(row.content),
      status: row.status as MessageRecord["status"],
      tokens_used: Number(row.tokens_used),
      tools_called: JSON.parse(String(row.tools_called)),
      tool_call_id: (row.tool_call_id as string | null) ?? null,
      error_message: (row.error_message as string | null) ?? null,
      provider: (row.provider as string | null) ?? null,
      model: (row.model as string | null) ?? null,
      created_at: String(row.created_at),
    };
  }
}
