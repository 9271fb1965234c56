-- trigger_type is one of manual, schedule, webhook, poll. Rows saved before it was checked with
-- any other type become `manual` (what they were in effect: nothing armed them), and keep their
-- config so the owner can see what was meant; a manual trigger ignores it.
UPDATE `workflows` SET `trigger_type` = 'manual' WHERE `trigger_type` NOT IN ('manual', 'schedule', 'webhook', 'poll');
--> statement-breakpoint
UPDATE `templates` SET `trigger_type` = 'manual' WHERE `trigger_type` NOT IN ('manual', 'schedule', 'webhook', 'poll');
--> statement-breakpoint
UPDATE `agents` SET `trigger_type` = 'manual' WHERE `trigger_type` NOT IN ('manual', 'schedule', 'webhook', 'poll');
