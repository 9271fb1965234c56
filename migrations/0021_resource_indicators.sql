-- RFC 8707: the resource an authorization was asked for, bound into its tokens' audience.
ALTER TABLE `authorization_codes` ADD `resource` text;
--> statement-breakpoint
ALTER TABLE `grants` ADD `resource` text;
