CREATE TABLE `workflow_versions` (
	`workflow_id` integer NOT NULL,
	`version` integer NOT NULL,
	`steps` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`workflow_id`, `version`),
	FOREIGN KEY (`workflow_id`) REFERENCES `workflows`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Workflows from before this table start their history with the version they are at.
INSERT INTO `workflow_versions` (`workflow_id`, `version`, `steps`, `created_at`) SELECT `id`, `version`, `steps`, `updated_at` FROM `workflows`;
