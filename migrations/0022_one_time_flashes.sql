-- Flash cookies that carry a one-time secret (a new agent's webhook secret), recorded when shown:
-- the same cookie presented again shows nothing. A row is kept until its flash has expired.
CREATE TABLE `one_time_flashes` (
	`id` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `one_time_flashes_expiry_idx` ON `one_time_flashes` (`expires_at`);
