-- Bytes of step results a run has written (MAX_RUN_STORED_BYTES), kept in the batches that write them.
ALTER TABLE `executions` ADD `stored_bytes` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- The run a child or on_failure run descends from (null on the root itself), and, on a root,
-- how many runs its tree has set off (MAX_RUN_DESCENDANTS).
ALTER TABLE `executions` ADD `root_execution_id` text;
--> statement-breakpoint
ALTER TABLE `executions` ADD `descendants` integer DEFAULT 0 NOT NULL;
