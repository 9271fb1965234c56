ALTER TABLE `execution_steps` ADD `tokens_used` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `executions` ADD `tokens_used` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `executions` ADD `parent_execution_id` text;--> statement-breakpoint
ALTER TABLE `executions` ADD `depth` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `executions_parent_idx` ON `executions` (`parent_execution_id`);