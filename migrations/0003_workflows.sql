CREATE TABLE `execution_steps` (
	`execution_id` text NOT NULL,
	`step_key` text NOT NULL,
	`step_id` text NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`result` text,
	`error_message` text,
	`resume_at` integer,
	`position` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	PRIMARY KEY(`execution_id`, `step_key`),
	FOREIGN KEY (`execution_id`) REFERENCES `executions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `executions` (
	`id` text PRIMARY KEY NOT NULL,
	`workflow_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`credential_id` text NOT NULL,
	`workflow_version` integer NOT NULL,
	`steps` text NOT NULL,
	`settings` text NOT NULL,
	`variables` text NOT NULL,
	`input` text NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`error_message` text,
	`failed_step_id` text,
	`lease_token` text,
	`lease_until` integer,
	`agent_id` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`workflow_id`) REFERENCES `workflows`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `executions_workflow_idx` ON `executions` (`workflow_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `executions_status_idx` ON `executions` (`status`,`lease_until`);--> statement-breakpoint
CREATE TABLE `workflows` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`is_template` integer DEFAULT false NOT NULL,
	`trigger_type` text DEFAULT 'manual' NOT NULL,
	`trigger_config` text DEFAULT '{}' NOT NULL,
	`variables` text DEFAULT '{}' NOT NULL,
	`workflow_metadata` text DEFAULT '{}' NOT NULL,
	`settings` text DEFAULT '{}' NOT NULL,
	`steps` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `workflows_user_idx` ON `workflows` (`user_id`,`id`);