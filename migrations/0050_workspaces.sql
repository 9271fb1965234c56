-- Teams (DESIGN §6.4). A workspace is an account: the `users` row that every owned table's
-- user_id already points at. A person's own account is their personal workspace (nothing moves);
-- a team workspace is an account of kind 'workspace' that nobody signs in to.
ALTER TABLE `users` ADD COLUMN `kind` text NOT NULL DEFAULT 'person';
--> statement-breakpoint

-- Who belongs to a team workspace and with what role. A personal workspace has no rows: its
-- person is its owner.
CREATE TABLE `workspace_members` (
	`workspace_id` integer NOT NULL REFERENCES `users`(`id`) ON DELETE CASCADE,
	`user_id` integer NOT NULL REFERENCES `users`(`id`) ON DELETE CASCADE,
	`role` text NOT NULL,
	`created_at` integer NOT NULL DEFAULT (unixepoch('subsec') * 1000),
	PRIMARY KEY (`workspace_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `workspace_members_user_idx` ON `workspace_members` (`user_id`);
--> statement-breakpoint

-- An API key may act in one workspace only.
ALTER TABLE `api_keys` ADD COLUMN `workspace_id` integer REFERENCES `users`(`id`) ON DELETE CASCADE;
--> statement-breakpoint

-- Who changed what in a workspace, written in the same batch as the change.
CREATE TABLE `workspace_audit` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL REFERENCES `users`(`id`) ON DELETE CASCADE,
	`at` integer NOT NULL DEFAULT (unixepoch('subsec') * 1000),
	`actor_user_id` integer,
	`actor_email` text,
	`action` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`detail` text NOT NULL DEFAULT '{}'
);
--> statement-breakpoint
CREATE INDEX `workspace_audit_workspace_idx` ON `workspace_audit` (`workspace_id`, `id`);
