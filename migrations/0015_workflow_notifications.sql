CREATE TABLE `execution_notifications` (
	`id` text PRIMARY KEY NOT NULL,
	`execution_id` text NOT NULL,
	`event` text NOT NULL,
	`url` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`attempt_log` text DEFAULT '[]' NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`delivered_at` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`execution_id`) REFERENCES `executions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `execution_notifications_execution_idx` ON `execution_notifications` (`execution_id`);--> statement-breakpoint
CREATE INDEX `execution_notifications_due_idx` ON `execution_notifications` (`status`,`next_attempt_at`);--> statement-breakpoint
ALTER TABLE `workflows` ADD `notify_secret` text;