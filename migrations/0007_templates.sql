CREATE TABLE `templates` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`category` text NOT NULL,
	`difficulty` text NOT NULL,
	`required_connections` text NOT NULL,
	`tags` text NOT NULL,
	`featured` integer DEFAULT false NOT NULL,
	`use_count` integer DEFAULT 0 NOT NULL,
	`trigger_type` text DEFAULT 'manual' NOT NULL,
	`trigger_config` text NOT NULL,
	`variables` text NOT NULL,
	`steps` text NOT NULL,
	`author_user_id` integer,
	`source_workflow_id` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`author_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `templates_category_idx` ON `templates` (`category`);--> statement-breakpoint
CREATE INDEX `templates_author_idx` ON `templates` (`author_user_id`);