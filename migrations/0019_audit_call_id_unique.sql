-- One audit record per tool call. A batch that was stored but reported as failed used to be
-- written again record by record; keep the first of any such copies before the index forbids them.
DELETE FROM `audit_logs` WHERE `id` NOT IN (SELECT MIN(`id`) FROM `audit_logs` GROUP BY `call_id`);
--> statement-breakpoint
CREATE UNIQUE INDEX `audit_logs_call_id_unique` ON `audit_logs` (`call_id`);
