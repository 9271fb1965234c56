-- Full-text search over agent memories (DESIGN §6.1), which drizzle-kit cannot declare: an FTS5
-- index whose content is agent_memories itself (external content: the text is stored once), kept
-- in step by triggers, so every insert and delete (a quota take-back, the cascade when an agent or
-- account is deleted) updates it in the same transaction.
--
-- The agent's id is indexed too: searches match it as a phrase (src/memories/fts.ts), so FTS5
-- walks only the agent's own entries instead of every agent's rows holding a common word.
-- porter stems English words ("sending" finds "send"); unicode61 folds case and, with
-- remove_diacritics 2, accents ("cafe" finds "café").
CREATE VIRTUAL TABLE `agent_memories_fts` USING fts5(
	text,
	agent_id,
	content = 'agent_memories',
	content_rowid = 'id',
	tokenize = 'porter unicode61 remove_diacritics 2'
);
--> statement-breakpoint
CREATE TRIGGER `agent_memories_fts_insert` AFTER INSERT ON `agent_memories` BEGIN
	INSERT INTO agent_memories_fts (rowid, text, agent_id) VALUES (new.id, new.text, new.agent_id);
END;
--> statement-breakpoint
-- External content: FTS5 removes an entry only when told the values it indexed.
CREATE TRIGGER `agent_memories_fts_delete` AFTER DELETE ON `agent_memories` BEGIN
	INSERT INTO agent_memories_fts (agent_memories_fts, rowid, text, agent_id) VALUES ('delete', old.id, old.text, old.agent_id);
END;
--> statement-breakpoint
-- Memories are not edited today; should one ever be, its index entry follows.
CREATE TRIGGER `agent_memories_fts_update` AFTER UPDATE OF text, agent_id ON `agent_memories` BEGIN
	INSERT INTO agent_memories_fts (agent_memories_fts, rowid, text, agent_id) VALUES ('delete', old.id, old.text, old.agent_id);
	INSERT INTO agent_memories_fts (rowid, text, agent_id) VALUES (new.id, new.text, new.agent_id);
END;
