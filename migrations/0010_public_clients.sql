PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_oauth_apps` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`client_id` text NOT NULL,
	`client_secret_hash` text,
	`user_id` integer,
	`name` text NOT NULL,
	`redirect_uris` text NOT NULL,
	`scopes` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_oauth_apps`("id", "client_id", "client_secret_hash", "user_id", "name", "redirect_uris", "scopes", "created_at", "revoked_at") SELECT "id", "client_id", "client_secret_hash", "user_id", "name", "redirect_uris", "scopes", "created_at", "revoked_at" FROM `oauth_apps`;--> statement-breakpoint
DROP TABLE `oauth_apps`;--> statement-breakpoint
ALTER TABLE `__new_oauth_apps` RENAME TO `oauth_apps`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_apps_client_id_unique` ON `oauth_apps` (`client_id`);--> statement-breakpoint
CREATE INDEX `oauth_apps_user_idx` ON `oauth_apps` (`user_id`);