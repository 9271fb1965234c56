-- Budgets and the ledger (DESIGN §6.2). Written by hand to match src/db/schema.ts (modelUsage,
-- accountBudgets, executionSteps.usage/error_code).
--
-- model_usage: one row per model request that got an answer. Costs are integer nano-dollars
-- (1e-9 USD): a price per million tokens with up to three decimals times a token count is then a
-- whole number, so sums are exact. agent_id, conversation_id, execution_id and workflow_id carry
-- no foreign keys on purpose: deleting an agent or a run must not erase what it spent.
CREATE TABLE `model_usage` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`agent_id` text,
	`conversation_id` integer,
	`execution_id` text,
	`workflow_id` integer,
	`provider` text NOT NULL,
	`model` text NOT NULL,
	`input_tokens` integer NOT NULL,
	`output_tokens` integer NOT NULL,
	`cost_nanousd` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `model_usage_user_idx` ON `model_usage` (`user_id`,`created_at`);
--> statement-breakpoint
CREATE INDEX `model_usage_agent_idx` ON `model_usage` (`agent_id`,`created_at`);
--> statement-breakpoint
CREATE INDEX `model_usage_execution_idx` ON `model_usage` (`execution_id`);
--> statement-breakpoint
-- The account's budget (PUT /v1/me/budget): a row only for accounts that set one.
CREATE TABLE `account_budgets` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`max_nanousd_per_month` integer,
	`max_tokens_per_day` integer,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- An llm step's record carries its usage, and the code of a failure the API names (budget_exceeded).
ALTER TABLE `execution_steps` ADD `usage` text;
--> statement-breakpoint
ALTER TABLE `execution_steps` ADD `error_code` text;
