-- Flow control of a workflow's starts (settings.debounce, concurrency_key, rate_limit).

-- One row per workflow and debounce key (a hash of the key's value): the run the window's starts
-- collapse into, queued with its not-before time in lease_until. `last_start` is the nonce of the
-- latest start that joined it, so the statements of one start can tell that its join landed.
CREATE TABLE `debounce_windows` (
	`workflow_id` integer NOT NULL REFERENCES `workflows`(`id`) ON DELETE CASCADE,
	`key_hash` text NOT NULL,
	`execution_id` text NOT NULL,
	`first_at` integer NOT NULL,
	`fires_at` integer NOT NULL,
	`last_start` text NOT NULL,
	PRIMARY KEY (`workflow_id`, `key_hash`)
);
--> statement-breakpoint
CREATE INDEX `debounce_windows_fires_idx` ON `debounce_windows` (`workflow_id`, `fires_at`);
--> statement-breakpoint
CREATE INDEX `debounce_windows_old_idx` ON `debounce_windows` (`fires_at`);
--> statement-breakpoint

-- Starts counted per workflow per fixed window of settings.rate_limit.period_seconds.
CREATE TABLE `rate_windows` (
	`workflow_id` integer NOT NULL REFERENCES `workflows`(`id`) ON DELETE CASCADE,
	`window_start` integer NOT NULL,
	`starts` integer NOT NULL,
	PRIMARY KEY (`workflow_id`, `window_start`)
);
--> statement-breakpoint
CREATE INDEX `rate_windows_old_idx` ON `rate_windows` (`window_start`);
--> statement-breakpoint

-- A hash of the run's settings.concurrency_key, set when it takes its lease: runs with a live
-- lease are counted per key.
ALTER TABLE `executions` ADD `concurrency_key` text;
--> statement-breakpoint
CREATE INDEX `executions_concurrency_key_idx` ON `executions` (`workflow_id`, `concurrency_key`, `lease_until`);
