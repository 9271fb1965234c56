-- OAuth 2.0 connections (DESIGN §5 "Connections that keep working").
-- How a connection proves itself: `config` (credentials pasted into its config, as before) or
-- `oauth2` (tokens from an authorization: Slack, HubSpot, Google, the generic oauth2 platform, MCP
-- servers behind OAuth). Status gains `pending` (waiting for the person to authorize); statuses
-- are not constrained in SQL, so existing rows need no change.
ALTER TABLE `connections` ADD `auth_mode` text DEFAULT 'config' NOT NULL;
--> statement-breakpoint
-- The access and refresh tokens, sealed together (one write stores a rotated pair), never returned.
ALTER TABLE `connections` ADD `oauth_tokens` text;
--> statement-breakpoint
-- What responses show of them: granted scopes (JSON array), when the access token expires, when it was last refreshed.
ALTER TABLE `connections` ADD `oauth_scopes` text;
--> statement-breakpoint
ALTER TABLE `connections` ADD `oauth_expires_at` integer;
--> statement-breakpoint
ALTER TABLE `connections` ADD `oauth_refreshed_at` integer;
--> statement-breakpoint
-- MCP servers: the client registration (RFC 7591) and discovery results (RFC 9728, RFC 8414), sealed.
ALTER TABLE `connections` ADD `oauth_client` text;
--> statement-breakpoint
-- Authorizations under way: one row per `state` (only its SHA-256 is kept), single use, bound to
-- the person who started it, 10 minutes. The PKCE verifier (and an MCP server's registration) is
-- sealed. `connection_id` is null for an MCP connection test: the callback creates the connection
-- from `draft` (its name and sealed config).
CREATE TABLE `oauth_authorizations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`state_hash` text NOT NULL,
	`user_id` integer NOT NULL,
	`connection_id` integer,
	`connection_uid` text NOT NULL,
	`platform` text NOT NULL,
	`draft` text,
	`sealed` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`return_to` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`connection_id`) REFERENCES `connections`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_authorizations_state_unique` ON `oauth_authorizations` (`state_hash`);
--> statement-breakpoint
CREATE INDEX `oauth_authorizations_user_idx` ON `oauth_authorizations` (`user_id`, `expires_at`);
--> statement-breakpoint
CREATE INDEX `oauth_authorizations_expiry_idx` ON `oauth_authorizations` (`expires_at`);
