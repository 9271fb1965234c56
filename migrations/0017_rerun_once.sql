DROP INDEX `executions_replay_of_idx`;--> statement-breakpoint
CREATE UNIQUE INDEX `executions_replay_of_unique` ON `executions` (`replay_of`);--> statement-breakpoint
CREATE UNIQUE INDEX `executions_retry_of_unique` ON `executions` (`retry_of`);