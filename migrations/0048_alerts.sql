-- Alerts (DESIGN §6.5). Written by hand to match src/db/schema.ts (alertSettings, alertChannels,
-- alertEvents).
--
-- alert_settings: one row per account that set alerts (PUT /v1/me/alerts). `events` is the JSON
-- list of kinds recorded; `signing_secret` (sealed) signs webhook messages; `dropped_total` counts
-- the events not kept because the account's backlog was full.
CREATE TABLE `alert_settings` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`events` text DEFAULT '[]' NOT NULL,
	`min_interval_seconds` integer DEFAULT 900 NOT NULL,
	`signing_secret` text NOT NULL,
	`dropped_total` integer DEFAULT 0 NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- alert_channels: the account's channels in the order it named them, each with its own progress:
-- the last event id it was sent (`sent_through`), when its last message went, and a claim held
-- while a message is on its way (so two sweeps never send the same digest).
CREATE TABLE `alert_channels` (
	`user_id` integer NOT NULL,
	`position` integer NOT NULL,
	`channel` text NOT NULL,
	`sent_through` integer DEFAULT 0 NOT NULL,
	`dropped_seen` integer DEFAULT 0 NOT NULL,
	`last_sent_at` integer,
	`claimed_until` integer,
	`last_error` text,
	PRIMARY KEY(`user_id`, `position`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- alert_events: what happened and is not yet sent to every channel. A repeat of the same thing
-- (one budget refusing again, one connection found expired again) folds into its row.
CREATE TABLE `alert_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`kind` text NOT NULL,
	`subject` text NOT NULL,
	`summary` text NOT NULL,
	`occurrences` integer DEFAULT 1 NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`last_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alert_events_subject_idx` ON `alert_events` (`user_id`,`kind`,`subject`);
