CREATE TABLE `agents` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`workflow_id` integer NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`trigger_type` text DEFAULT 'manual' NOT NULL,
	`schedule` text,
	`config` text DEFAULT '{}' NOT NULL,
	`webhook_secret` text NOT NULL,
	`credential_id` text NOT NULL,
	`execution_count` integer DEFAULT 0 NOT NULL,
	`success_count` integer DEFAULT 0 NOT NULL,
	`failure_count` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`last_run_at` integer,
	`next_run_at` integer,
	`total_duration_ms` integer DEFAULT 0 NOT NULL,
	`last_duration_ms` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workflow_id`) REFERENCES `workflows`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `agents_user_idx` ON `agents` (`user_id`,`created_at`);