import type { ModelUsage } from "../usage/model-usage";

/** A stored message, as the API returns it (SPEC: Message). */
export interface MessageRecord {
  id: number;
  conversation_id: number;
  role: "user" | "assistant" | "tool" | "system";
  content: string;
  /**
   * received (a user message), completed, error, stopped (an answer cut short by a stop: the
   * text produced so far), summary (a `system` message replacing older history for the model), or
   * awaiting_approval (an answer whose calls wait for a person; completed once they are decided),
   * or budget_exceeded (a turn ended before a model request because a budget was spent).
   */
  status: "received" | "completed" | "error" | "stopped" | "summary" | "awaiting_approval" | "budget_exceeded";
  tokens_used: number;
  tools_called: ToolCallRecord[];
  tool_call_id: string | null;
  error_message: string | null;
  provider: string | null;
  model: string | null;
  /** What an answer's model requests spent (DESIGN §6.2 Ledger); null when none answered, and on other messages. */
  usage: ModelUsage | null;
  /** The approvals an `awaiting_approval` answer waits on (DESIGN §6.2); absent on other messages. */
  pending_approvals?: string[];
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
  /** The approval a call waited on (a policy's `ask`); its result is stored once decided. */
  approval_id?: string;
}

/** `usage` may be left out: only an assistant's answer has one (DESIGN §6.2 Ledger). */
export type NewMessage = Omit<MessageRecord, "id" | "conversation_id" | "created_at" | "usage"> & { usage?: ModelUsage | null };

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
    // What an answer's model requests spent (JSON, DESIGN §6.2 Ledger); null on other messages.
    if (!columns.some((c) => c.name === "usage")) sql.exec(`ALTER TABLE messages ADD COLUMN usage TEXT`);
    // The approvals an answer waited on (JSON ids), kept after they are decided.
    if (!columns.some((c) => c.name === "approvals")) sql.exec(`ALTER TABLE messages ADD COLUMN approvals TEXT`);
  }

  /** The newest answer still waiting for approvals, if the conversation's last turn ended so. */
  waiting(conversationId: number): MessageRecord | null {
    const row = this.sql.exec(`SELECT * FROM messages WHERE role = 'assistant' ORDER BY id DESC LIMIT 1`).toArray()[0];
    return row && row.status === "awaiting_approval" ? this.toRecord(conversationId, row) : null;
  }

  /** Completes a waiting answer with its calls as they ended once decided; null if it no longer waits. */
  settleWaiting(conversationId: number, id: number, calls: ToolCallRecord[]): MessageRecord | null {
    const row = this.sql
      .exec(`UPDATE messages SET status = 'completed', tools_called = ? WHERE id = ? AND status = 'awaiting_approval' RETURNING *`, JSON.stringify(calls), id)
      .toArray()[0];
    return row ? this.toRecord(conversationId, row) : null;
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
        `INSERT INTO messages (role, content, status, tokens_used, tools_called, tool_call_id, error_message, provider, model, approvals, usage, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        message.role,
        message.content,
        message.status,
        message.tokens_used,
        JSON.stringify(message.tools_called),
        message.tool_call_id,
        message.error_message,
        message.provider,
        message.model,
        message.pending_approvals?.length ? JSON.stringify(message.pending_approvals) : null,
        message.usage ? JSON.stringify(message.usage) : null,
        createdAt,
      )
      .one();
    const { pending_approvals, ...rest } = message;
    return {
      ...rest,
      usage: message.usage ?? null,
      ...(message.status === "awaiting_approval" ? { pending_approvals: pending_approvals ?? [] } : {}),
      id: Number(row.id),
      conversation_id: conversationId,
      created_at: createdAt,
    };
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
      usage: row.usage ? (JSON.parse(String(row.usage)) as ModelUsage) : null,
      ...(row.status === "awaiting_approval" ? { pending_approvals: JSON.parse(String(row.approvals ?? "[]")) as string[] } : {}),
      created_at: String(row.created_at),
    };
  }
}
