import { sql } from "drizzle-orm";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The FTS5 index over agent_memories (migration 0037), named for queries only: drizzle-kit
 * cannot declare a virtual table, so it is not in src/db/schema.ts (drizzle-kit reads only that
 * file) and its shape here must follow the migration's. Its rowid is the memory's id.
 */
export const memoryIndex = sqliteTable("agent_memories_fts", {
  rowid: integer("rowid").notNull(),
  text: text("text").notNull(),
  agentId: text("agent_id").notNull(),
});

/** Rows of the index matching an expression built by memoryMatch (never raw input). */
export const matches = (expression: string) => sql`${memoryIndex} match ${expression}`;

/** BM25 relevance, lower is better; the agent-id column weighs nothing (every entry of the agent has it). */
export const relevance = sql`bm25(${memoryIndex}, 1.0, 0.0)`;
