-- Goals (DESIGN §6.3). Written by hand to match src/db/schema.ts (executions.verdict, verdictReason).
-- A run of an agent with agent_config.goal gets its verdict when it ends: `goal_met` or
-- `goal_not_met`, with the reason. Null for runs of no agent, of an agent without a goal, and
-- while a judge is still being asked.
ALTER TABLE `executions` ADD `verdict` text;
--> statement-breakpoint
ALTER TABLE `executions` ADD `verdict_reason` text;
