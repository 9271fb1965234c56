ALTER TABLE `executions` ADD `retry_of` text;--> statement-breakpoint
ALTER TABLE `executions` ADD `replay_of` text;--> statement-breakpoint
CREATE INDEX `executions_replay_of_idx` ON `executions` (`replay_of`);