-- Runs across workflows and their retention (DESIGN §6.5).
--
-- What started a run, so runs can be filtered by it: manual (the API, the dashboard, an agent run
-- by hand), schedule, webhook, poll (an agent's trigger), child (a `workflow` step), on_failure
-- (a workflow's error workflow), retry, replay. Runs written before this column are given it from
-- what they recorded: their retry/replay/parent links and the agent's events log.
ALTER TABLE `executions` ADD `trigger_source` text DEFAULT 'manual' NOT NULL;
--> statement-breakpoint
UPDATE `executions` SET `trigger_source` = CASE
	WHEN `retry_of` IS NOT NULL THEN 'retry'
	WHEN `replay_of` IS NOT NULL THEN 'replay'
	WHEN `parent_execution_id` IS NOT NULL AND json_extract(`input`, '$.execution.id') = `parent_execution_id` THEN 'on_failure'
	WHEN `parent_execution_id` IS NOT NULL THEN 'child'
	ELSE 'manual'
END;
--> statement-breakpoint
UPDATE `executions` SET `trigger_source` = `logged`.`source`
FROM (SELECT `execution_id`, max(`source`) AS `source` FROM `agent_events` WHERE `execution_id` IS NOT NULL AND `outcome` = 'started' GROUP BY `execution_id`) AS `logged`
WHERE `executions`.`id` = `logged`.`execution_id` AND `executions`.`trigger_source` = 'manual';
--> statement-breakpoint
-- GET /v1/executions reads newest first (created_at, id) within the caller's runs, narrowed by one
-- of these. The (user_id, status) index
-- becomes a prefix of the wider one, which the unfinished-runs quota still uses.
CREATE INDEX `executions_user_created_idx` ON `executions` (`user_id`,`created_at`,`id`);
--> statement-breakpoint
DROP INDEX IF EXISTS `executions_user_status_idx`;
--> statement-breakpoint
CREATE INDEX `executions_user_status_created_idx` ON `executions` (`user_id`,`status`,`created_at`,`id`);
--> statement-breakpoint
CREATE INDEX `executions_user_trigger_idx` ON `executions` (`user_id`,`trigger_source`,`created_at`,`id`);
--> statement-breakpoint
-- With the owner first, these beat the (user_id, created_at) index when a workflow or agent is asked for.
CREATE INDEX `executions_user_workflow_idx` ON `executions` (`user_id`,`workflow_id`,`created_at`,`id`);
--> statement-breakpoint
CREATE INDEX `executions_user_agent_idx` ON `executions` (`user_id`,`agent_id`,`created_at`,`id`);
--> statement-breakpoint
-- Retention: finished runs by when they finished, overall and per workflow (unfinished runs have
-- no finished_at and stay out of both).
CREATE INDEX `executions_finished_idx` ON `executions` (`finished_at`,`workflow_id`) WHERE `finished_at` IS NOT NULL;
--> statement-breakpoint
CREATE INDEX `executions_workflow_finished_idx` ON `executions` (`workflow_id`,`finished_at`) WHERE `finished_at` IS NOT NULL;
--> statement-breakpoint
-- A deleted run takes its idempotency keys with it (a foreign key): found by run, not by a scan.
CREATE INDEX `execution_keys_execution_idx` ON `execution_keys` (`execution_id`);
--> statement-breakpoint
-- The few workflows with their own settings.retention_days, found without reading every workflow.
CREATE INDEX `workflows_retention_idx` ON `workflows` (json_extract(`settings`, '$.retention_days')) WHERE json_extract(`settings`, '$.retention_days') IS NOT NULL;
--> statement-breakpoint
-- `q`: full-text search over a run's input and error, which drizzle-kit cannot declare. External
-- content (the text is stored once, in executions) keyed by the row's rowid, kept in step by
-- triggers in the same transaction as every insert, update and delete (retention included). The
-- owner's id is indexed too: a search matches it as a phrase, so FTS5 walks only the caller's
-- entries (src/executions/search.ts). unicode61 folds case and accents; no stemming: `q` looks
-- for the words typed.
CREATE VIRTUAL TABLE `executions_fts` USING fts5(
	input,
	error_message,
	user_id,
	content = 'executions',
	content_rowid = 'rowid',
	tokenize = 'unicode61 remove_diacritics 2'
);
--> statement-breakpoint
INSERT INTO `executions_fts` (`executions_fts`) VALUES ('rebuild');
--> statement-breakpoint
CREATE TRIGGER `executions_fts_insert` AFTER INSERT ON `executions` BEGIN
	INSERT INTO executions_fts (rowid, input, error_message, user_id) VALUES (new.rowid, new.input, new.error_message, new.user_id);
END;
--> statement-breakpoint
-- External content: FTS5 removes an entry only when told the values it indexed.
CREATE TRIGGER `executions_fts_delete` AFTER DELETE ON `executions` BEGIN
	INSERT INTO executions_fts (executions_fts, rowid, input, error_message, user_id) VALUES ('delete', old.rowid, old.input, old.error_message, old.user_id);
END;
--> statement-breakpoint
-- A run's error is written when it ends; updates that set the same values cost no re-indexing.
CREATE TRIGGER `executions_fts_update` AFTER UPDATE OF input, error_message ON `executions`
WHEN old.input IS NOT new.input OR old.error_message IS NOT new.error_message BEGIN
	INSERT INTO executions_fts (executions_fts, rowid, input, error_message, user_id) VALUES ('delete', old.rowid, old.input, old.error_message, old.user_id);
	INSERT INTO executions_fts (rowid, input, error_message, user_id) VALUES (new.rowid, new.input, new.error_message, new.user_id);
END;
