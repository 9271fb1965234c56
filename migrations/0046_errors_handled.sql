-- Per-step error handling (DESIGN §6.5). Written by hand to match src/db/schema.ts (executions.errorsHandled).
-- How many step failures a run's `on_error` took over (continue, or handler steps that ran) and
-- went on past; 0 for runs before it, and for runs whose steps all succeeded.
ALTER TABLE `executions` ADD `errors_handled` integer DEFAULT 0 NOT NULL;
