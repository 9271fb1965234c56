-- Placeholders are strict from now on: one with no value and no `| default:` fails its step.
-- Workflows saved before, and their unfinished runs, keep today's behaviour (left as written):
-- they are marked `strict_placeholders: false`, which their owners can change.
UPDATE `workflows` SET `settings` = json_set(coalesce(`settings`, '{}'), '$.strict_placeholders', json('false'))
WHERE json_extract(`settings`, '$.strict_placeholders') IS NULL;
--> statement-breakpoint
UPDATE `executions` SET `settings` = json_set(coalesce(`settings`, '{}'), '$.strict_placeholders', json('false'))
WHERE `status` IN ('queued', 'running', 'waiting') AND json_extract(`settings`, '$.strict_placeholders') IS NULL;
