-- Custom platforms (DESIGN §5 "Platforms, and the ones users add"): a platform a person made from
-- an OpenAPI 3.0/3.1 document, private to them. Only what calls need is kept, not the document:
-- the first server's URL, the auth its securitySchemes give (JSON), and one declaration per
-- operation (JSON: method, path, where each parameter goes, the input schema).
-- `uid` is the platform id callers use (`cp_<8 characters>`), the prefix of its tools' names.
CREATE TABLE `custom_platforms` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uid` text NOT NULL,
	`user_id` integer NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`openapi_version` text NOT NULL,
	`server_url` text NOT NULL,
	`auth` text NOT NULL,
	`tools` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `custom_platforms_uid_unique` ON `custom_platforms` (`uid`);
--> statement-breakpoint
CREATE INDEX `custom_platforms_user_idx` ON `custom_platforms` (`user_id`, `id`);
