// hub agents list | deploy <workflow_id> [--config JSON] | run <agent_id> [--input JSON] [--wait]
import type { Command } from "commander";
import { startedRun } from "./follow.ts";
import { idArg, jsonObjectArg, printJson, printTable, unwrap } from "./output.ts";
import { openSession } from "./session.ts";

export function agentCommands(program: Command) {
  const agents = program.command("agents").description("deploy workflows as agents, list and run them");

  agents
    .command("list")
    .description("the workspace's agents")
    .action(async (_options: unknown, command: Command) => {
      const session = openSession(command);
      const list = unwrap(await session.client.GET("/v1/agents"));
      if (session.json) return printJson(list);
      printTable(
        ["agent", "workflow", "name", "status", "trigger", "runs"],
        list.map((a) => [a.agent_id, a.workflow_id, a.workflow_name, a.status, a.trigger_type, a.monitoring.execution_count]),
      );
    });

  agents
    .command("deploy <workflow_id>")
    .description("deploy a workflow as an agent (its trigger then starts runs)")
    .option("--config <json>", "the agent_config, a JSON object")
    .action(async (workflowId: string, options: { config?: string }, command: Command) => {
      const session = openSession(command);
      const agent = unwrap(
        await session.client.POST("/v1/agents/deploy", {
          body: {
            workflow_id: idArg(workflowId, "The workflow id"),
            // Checked by the hub (a 422 names the field), not here.
            ...(options.config ? { agent_config: jsonObjectArg(options.config, "--config") as never } : {}),
          },
        }),
      );
      if (session.json) return printJson(agent);
      process.stdout.write(`deployed agent ${agent.agent_id} for workflow ${agent.workflow_id} (${agent.trigger_type} trigger)\n`);
      process.stdout.write(`webhook secret (shown only now): ${agent.webhook_secret}\n`);
    });

  agents
    .command("run <agent_id>")
    .description("start a run of the agent by hand")
    .option("--input <json>", "the run's input, a JSON object", "{}")
    .option("--wait", "follow the run until it ends, printing its steps (exit code 1 unless it succeeds)")
    .action(async (agentId: string, options: { input: string; wait?: boolean }, command: Command) => {
      const session = openSession(command);
      const started = unwrap(
        await session.client.POST("/v1/agents/{agent_id}/execute", {
          params: { path: { agent_id: agentId } },
          body: jsonObjectArg(options.input, "--input"),
        }),
      );
      await startedRun(session, started, Boolean(options.wait));
    });
}
