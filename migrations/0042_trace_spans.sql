-- Traces of chat turns (DESIGN §6.3). Written by hand to match src/db/schema.ts (traceSpans).
-- One row per span, written in one batch when a turn ends; at most 500 spans per trace. Only
-- names, ids, models, token counts, times and outcomes: never tool arguments or results.
-- Deleting the conversation (or the account) deletes its traces.
CREATE TABLE `trace_spans` (
	`trace_id` text NOT NULL,
	`span_id` text NOT NULL,
	`parent_span_id` text,
	`name` text NOT NULL,
	`kind` integer NOT NULL,
	`start_ms` integer NOT NULL,
	`end_ms` integer NOT NULL,
	`status` text NOT NULL,
	`attributes` text NOT NULL,
	`user_id` integer NOT NULL,
	`conversation_id` integer,
	`message_id` integer,
	`execution_id` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`trace_id`, `span_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `trace_spans_message_idx` ON `trace_spans` (`conversation_id`,`message_id`);
--> statement-breakpoint
CREATE INDEX `trace_spans_execution_idx` ON `trace_spans` (`execution_id`);
