// hub approvals list [--status] | approve <id> [--note] [--arguments JSON] | deny <id> [--note]
import type { Command } from "commander";
import type { Schema } from "../index.ts";
import { CliError, idArg, jsonObjectArg, morePages, printJson, printTable, unwrap } from "./output.ts";
import { openSession, type Session } from "./session.ts";

type Status = Schema<"Approval">["status"];
const STATUSES: Status[] = ["pending", "approved", "denied", "expired"];

export function approvalCommands(program: Command) {
  const approvals = program.command("approvals").description("the tool calls that wait for a person's decision");

  approvals
    .command("list")
    .description("approvals, newest first")
    .option("--status <status>", `${STATUSES.join(", ")} or all`, "pending")
    .option("--limit <n>", "at most this many (1-100)", "20")
    .option("--cursor <cursor>", "the next page, as the previous one said")
    .action(async (options: { status: string; limit: string; cursor?: string }, command: Command) => {
      const session = openSession(command);
      if (options.status !== "all" && !STATUSES.includes(options.status as Status)) throw new CliError(`--status is one of ${STATUSES.join(", ")} or all.`);
      const query = {
        status: options.status === "all" ? undefined : (options.status as Status),
        limit: idArg(options.limit, "--limit"),
        cursor: options.cursor,
      };
      const page = unwrap(await session.client.GET("/v1/approvals", { params: { query } }));
      if (session.json) return printJson(page);
      printTable(
        ["id", "status", "tool", "arguments", "run", "agent", "expires"],
        page.data.map((a) => [a.id, a.status, a.tool, a.arguments, a.execution_id ?? a.conversation_id, a.agent_id, a.expires_at]),
      );
      morePages(page.next_cursor);
    });

  approvals
    .command("approve <id>")
    .description("let the call run")
    .option("--note <text>", "a note kept with the decision")
    .option("--arguments <json>", "run the call with these arguments instead (a JSON object)")
    .action(async (id: string, options: { note?: string; arguments?: string }, command: Command) => {
      const args = options.arguments ? jsonObjectArg(options.arguments, "--arguments") : undefined;
      await decide(openSession(command), id, { decision: "approve", note: options.note, arguments: args });
    });

  approvals
    .command("deny <id>")
    .description("refuse the call (the model is told, with the note)")
    .option("--note <text>", "why, told to the model")
    .action(async (id: string, options: { note?: string }, command: Command) => {
      await decide(openSession(command), id, { decision: "deny", note: options.note });
    });
}

async function decide(session: Session, id: string, body: Schema<"ApprovalDecision">) {
  const decided = unwrap(await session.client.POST("/v1/approvals/{id}/decision", { params: { path: { id } }, body }));
  if (session.json) return printJson(decided);
  process.stdout.write(`${decided.id} ${decided.status} (${decided.tool})\n`);
}
