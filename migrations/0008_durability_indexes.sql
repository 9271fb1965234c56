CREATE INDEX `agents_credential_idx` ON `agents` (`credential_id`);--> statement-breakpoint
CREATE INDEX `executions_user_status_idx` ON `executions` (`user_id`,`status`);--> statement-breakpoint
CREATE INDEX `executions_credential_idx` ON `executions` (`credential_id`);