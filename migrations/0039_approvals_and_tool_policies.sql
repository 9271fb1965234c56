-- Governance (DESIGN §6.2): the account's tool policies, and the approvals a call ruled `ask`
-- waits on. Written by hand to match src/db/schema.ts (toolPolicies, approvals).
CREATE TABLE `tool_policies` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`rules` text NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `approvals` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`tool` text NOT NULL,
	`arguments` text NOT NULL,
	`effect` text NOT NULL,
	`rule` text NOT NULL,
	`tool_call_id` text,
	`conversation_id` integer,
	`message_id` integer,
	`execution_id` text,
	`step_id` text,
	`agent_id` text,
	`notify` text DEFAULT '[]' NOT NULL,
	`link_token_hash` text,
	`requested_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`expires_at` integer NOT NULL,
	`decided_at` integer,
	`decided_by` text,
	`note` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `approvals_user_idx` ON `approvals` (`user_id`,`requested_at`);
--> statement-breakpoint
CREATE INDEX `approvals_user_status_idx` ON `approvals` (`user_id`,`status`,`requested_at`);
--> statement-breakpoint
CREATE INDEX `approvals_conversation_idx` ON `approvals` (`conversation_id`,`status`);
--> statement-breakpoint
CREATE UNIQUE INDEX `approvals_link_token_idx` ON `approvals` (`link_token_hash`);
