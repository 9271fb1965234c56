-- The person who started a connection's OAuth authorization: only they may complete it, in the
-- workspace it was started for (user_id). Rows from before teams have none (their user_id is
-- the person), and expire within ten minutes anyway.
ALTER TABLE `oauth_authorizations` ADD COLUMN `actor_user_id` integer REFERENCES `users`(`id`) ON DELETE CASCADE;
