// hub runs list [--status] [--workflow] [--agent] | get <id> | tail <id>
import type { Command } from "commander";
import type { Schema } from "../index.ts";
import { followRun } from "./follow.ts";
import { CliError, idArg, morePages, printFields, printJson, printTable, unwrap } from "./output.ts";
import { openSession } from "./session.ts";

type Status = NonNullable<Schema<"Execution">["status"]>;
const STATUSES: Status[] = ["queued", "running", "waiting", "succeeded", "failed", "cancelled"];

export function runCommands(program: Command) {
  const runs = program.command("runs").description("list, read and follow runs (executions)");

  runs
    .command("list")
    .description("the workspace's runs, newest first")
    .option("--status <status>", `only runs in this state (${STATUSES.join(", ")})`)
    .option("--workflow <id>", "only runs of this workflow")
    .option("--agent <id>", "only runs of this agent")
    .option("--limit <n>", "at most this many (1-100)", "20")
    .option("--cursor <cursor>", "the next page, as the previous one said")
    .action(async (options: { status?: string; workflow?: string; agent?: string; limit: string; cursor?: string }, command: Command) => {
      const session = openSession(command);
      if (options.status && !STATUSES.includes(options.status as Status)) throw new CliError(`--status is one of ${STATUSES.join(", ")}.`);
      const query = {
        status: options.status as Status | undefined,
        workflow_id: options.workflow ? idArg(options.workflow, "--workflow") : undefined,
        agent_id: options.agent,
        limit: idArg(options.limit, "--limit"),
        cursor: options.cursor,
      };
      const page = unwrap(await session.client.GET("/v1/executions", { params: { query } }));
      if (session.json) return printJson(page);
      printTable(
        ["id", "workflow", "status", "trigger", "started", "finished"],
        page.data.map((run) => [run.id, run.workflow_id, run.status, run.trigger, run.started_at ?? run.created_at, run.finished_at]),
      );
      morePages(page.next_cursor);
    });

  runs
    .command("get <id>")
    .description("one run with its steps")
    .action(async (id: string, _options: unknown, command: Command) => {
      const session = openSession(command);
      const run = unwrap(await session.client.GET("/v1/executions/{execution_id}", { params: { path: { execution_id: id } } }));
      if (session.json) return printJson(run);
      printFields([
        ["id", run.id],
        ["workflow", `${run.workflow_id} (version ${run.workflow_version})`],
        ["status", run.status],
        ["trigger", run.trigger],
        ["started", run.started_at ?? run.created_at],
        ["finished", run.finished_at],
        ...(run.error_message ? ([["error", `${run.failed_step_id ?? ""}: ${run.error_message}`]] as [string, unknown][]) : []),
        ...(run.waiting_for ? ([["waiting for", run.waiting_for]] as [string, unknown][]) : []),
      ]);
      process.stdout.write("\n");
      printTable(
        ["step", "type", "status", "attempts", "ms", "error"],
        (run.steps ?? []).map((s) => [s.item === null ? s.step_id : `${s.step_id}#${s.item}`, s.type, s.status, s.attempts, s.duration_ms, s.error_message]),
      );
    });

  runs
    .command("tail <id>")
    .description("follow a run until it ends, printing each step as it completes (exit code 1 unless it succeeds)")
    .action(async (id: string, _options: unknown, command: Command) => {
      await followRun(openSession(command), id);
    });
}
