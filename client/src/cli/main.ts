// The `hub` command: the hub's API from a terminal, on the typed client (../index.ts).
import { Command } from "commander";
import { agentCommands } from "./agents.ts";
import { approvalCommands } from "./approvals.ts";
import { loginCommand } from "./login.ts";
import { CliError } from "./output.ts";
import { runCommands } from "./runs.ts";
import { workflowCommands } from "./workflows.ts";

const program = new Command("hub")
  .description("The Agent Automation Hub from the command line. Sign in first with `hub login`.")
  .option("--json", "print the API's answers as JSON (machine output)")
  .option("--workspace <id>", "act in this workspace (else the login's, else the credential's own)")
  .showHelpAfterError();

loginCommand(program);
workflowCommands(program);
runCommands(program);
agentCommands(program);
approvalCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`hub: ${describe(error)}\n`);
  process.exitCode = 1;
}

function describe(error: unknown): string {
  if (error instanceof CliError) return error.message;
  // fetch failing outright: the hub is not there (or not at that address).
  if (error instanceof TypeError && error.message === "fetch failed")
    return `could not reach the hub (${(error.cause as Error | undefined)?.message ?? "no answer"})`;
  return error instanceof Error ? error.message : String(error);
}
