CREATE TABLE `audit_logs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`credential_id` text NOT NULL,
	`call_id` text NOT NULL,
	`tool` text NOT NULL,
	`connection_id` integer,
	`arguments` text,
	`outcome` text NOT NULL,
	`error_message` text,
	`duration_ms` integer NOT NULL,
	`source` text DEFAULT 'api' NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `audit_logs_user_idx` ON `audit_logs` (`user_id`,`id`);--> statement-breakpoint
CREATE TABLE `connections` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uid` text NOT NULL,
	`user_id` integer NOT NULL,
	`platform` text NOT NULL,
	`name` text NOT NULL,
	`config` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`error_message` text,
	`tools_cache` text,
	`tools_cached_at` integer,
	`last_used_at` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `connections_uid_unique` ON `connections` (`uid`);--> statement-breakpoint
CREATE INDEX `connections_user_idx` ON `connections` (`user_id`,`platform`);--> statement-breakpoint
CREATE TABLE `memory_entries` (
	`user_id` integer NOT NULL,
	`key` text NOT NULL,
	`value` text,
	`expires_at` integer,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`user_id`, `key`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
