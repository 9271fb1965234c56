-- Provider webhooks, polling and the events log (DESIGN §5 "Triggers").
-- The provider's signing secret (Stripe, GitHub, Slack…), sealed like the hub's own; set with
-- PUT /v1/agents/{id}/webhook-secret and never returned.
ALTER TABLE `agents` ADD `provider_secret` text;
--> statement-breakpoint
ALTER TABLE `agents` ADD `last_event_at` integer;
--> statement-breakpoint
-- Poll triggers: when the agent's object polls next (mirrored for the API and the cron backstop),
-- and how many polls in a row failed (the back-off doubles with each).
ALTER TABLE `agents` ADD `next_poll_at` integer;
--> statement-breakpoint
ALTER TABLE `agents` ADD `poll_failures` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE INDEX `agents_next_poll_idx` ON `agents` (`next_poll_at`) WHERE `next_poll_at` IS NOT NULL;
--> statement-breakpoint
-- Every delivery and poll with its outcome, newest first per agent, kept 7 days.
CREATE TABLE `agent_events` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`received_at` integer NOT NULL,
	`source` text NOT NULL,
	`outcome` text NOT NULL,
	`event_type` text,
	`event_id` text,
	`execution_id` text,
	`detail` text,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `agent_events_agent_idx` ON `agent_events` (`agent_id`, `received_at`, `id`);
--> statement-breakpoint
CREATE INDEX `agent_events_received_idx` ON `agent_events` (`received_at`);
