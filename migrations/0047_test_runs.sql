-- Test runs (DESIGN §6.5). Written by hand to match src/db/schema.ts (executions.mode, pinned).
-- `mode` is `production` for every run started by a trigger, the API or the dashboard (every
-- existing row), and `test` for POST /v1/workflows/{id}/test: a test run is listed like any run
-- but counts in no agent's monitoring, sends no notification, starts no on_failure run and is
-- never replayed. `pinned` holds a test run's pinned step results by step id (null otherwise).
ALTER TABLE `executions` ADD `mode` text DEFAULT 'production' NOT NULL;
--> statement-breakpoint
ALTER TABLE `executions` ADD `pinned` text;
