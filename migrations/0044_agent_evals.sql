-- Agent evals (DESIGN §6.3): the cases run against an agent's model and policies with mocked
-- tools, and their verdicts. Written by hand to match src/db/schema.ts (agentEvals).
CREATE TABLE `agent_evals` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`user_id` integer NOT NULL,
	`result` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `agent_evals_agent_idx` ON `agent_evals` (`agent_id`,`created_at`);
