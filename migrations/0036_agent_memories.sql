-- Agent memory (DESIGN §6.1): what an agent with agent_config.memory saved with memory_save. The
-- table as drizzle-kit generates it from src/db/schema.ts (agentMemories); its full-text index
-- is migration 0037. At most 10,000 rows of 2,000 characters per agent (src/memories/limits.ts).
CREATE TABLE `agent_memories` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`agent_id` text NOT NULL,
	`user_id` integer NOT NULL,
	`text` text NOT NULL,
	`conversation_id` integer,
	`execution_id` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `agent_memories_agent_idx` ON `agent_memories` (`agent_id`,`id`);
