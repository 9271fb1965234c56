// hub workflows list | get <id> | run <id> [--input JSON] [--wait] | export <id> [-o file] | import <file>
import { readFileSync, writeFileSync } from "node:fs";
import type { Command } from "commander";
import { startedRun } from "./follow.ts";
import { CliError, idArg, jsonObjectArg, morePages, printFields, printJson, printTable, unwrap } from "./output.ts";
import { openSession } from "./session.ts";

const BUNDLE_FORMAT = "hub.workflow/1";

export function workflowCommands(program: Command) {
  const workflows = program.command("workflows").description("list, read, run, export and import workflows");

  workflows
    .command("list")
    .description("the workspace's workflows, newest first")
    .option("--limit <n>", "at most this many (1-100)", "20")
    .option("--cursor <cursor>", "the next page, as the previous one said")
    .action(async (options: { limit: string; cursor?: string }, command: Command) => {
      const session = openSession(command);
      const page = unwrap(await session.client.GET("/v1/workflows", { params: { query: { limit: idArg(options.limit, "--limit"), cursor: options.cursor } } }));
      if (session.json) return printJson(page);
      printTable(
        ["id", "name", "status", "trigger", "version", "updated"],
        page.data.map((w) => [w.id, w.name, w.status, w.trigger_type, w.version, w.updated_at]),
      );
      morePages(page.next_cursor);
    });

  workflows
    .command("get <id>")
    .description("one workflow and its steps")
    .action(async (id: string, _options: unknown, command: Command) => {
      const session = openSession(command);
      const workflow = unwrap(await session.client.GET("/v1/workflows/{workflow_id}", { params: { path: { workflow_id: idArg(id, "The workflow id") } } }));
      if (session.json) return printJson(workflow);
      printFields([
        ["id", workflow.id],
        ["name", workflow.name],
        ["status", workflow.status],
        ["version", workflow.version],
        ["trigger", workflow.trigger_type],
        ["updated", workflow.updated_at],
      ]);
      process.stdout.write("\n");
      printTable(
        ["step", "type"],
        workflow.steps.map((step) => [step.id, step.type]),
      );
    });

  workflows
    .command("run <id>")
    .description("start a run of the workflow")
    .option("--input <json>", "the run's input_data, a JSON object", "{}")
    .option("--wait", "follow the run until it ends, printing its steps (exit code 1 unless it succeeds)")
    .action(async (id: string, options: { input: string; wait?: boolean }, command: Command) => {
      const session = openSession(command);
      const started = unwrap(
        await session.client.POST("/v1/workflows/{workflow_id}/execute", {
          params: { path: { workflow_id: idArg(id, "The workflow id") } },
          body: { input_data: jsonObjectArg(options.input, "--input") },
        }),
      );
      await startedRun(session, started, Boolean(options.wait));
    });

  workflows
    .command("export <id>")
    .description(`the workflow and every workflow it calls, as a ${BUNDLE_FORMAT} bundle (JSON, no ids or secrets)`)
    .option("-o, --output <file>", "write the bundle to this file instead of stdout")
    .action(async (id: string, options: { output?: string }, command: Command) => {
      const session = openSession(command);
      const bundle = unwrap(
        await session.client.GET("/v1/workflows/{workflow_id}/export", { params: { path: { workflow_id: idArg(id, "The workflow id") } } }),
      );
      if (!options.output) return printJson(bundle);
      writeFileSync(options.output, `${JSON.stringify(bundle, null, 2)}\n`);
      const count = 1 + bundle.children.length;
      if (!session.json) process.stdout.write(`wrote ${options.output} (${count} workflow${count === 1 ? "" : "s"})\n`);
    });

  workflows
    .command("import <file>")
    .description(`create workflows from a ${BUNDLE_FORMAT} bundle, or an n8n workflow export or a list of them ("-" reads stdin)`)
    .option("-c, --connection <platform=id...>", "the connection a platform's steps use, e.g. slack=12 (repeatable)")
    .action(async (file: string, options: { connection?: string[] }, command: Command) => {
      const session = openSession(command);
      const document = readJson(file);
      const connections = connectionMap(options.connection ?? []);
      const body = isBundle(document)
        ? { bundle: document as never, connections }
        : isN8n(document) || (Array.isArray(document) && document.length > 0 && document.every(isN8n))
          ? { n8n: document as Record<string, unknown> | Record<string, unknown>[], connections }
          : undefined;
      if (!body) throw new CliError(`${file} is neither a ${BUNDLE_FORMAT} bundle nor an n8n workflow export (or a list of them).`);
      const imported = unwrap(await session.client.POST("/v1/workflows/import", { body }));
      if (session.json) return printJson(imported);
      process.stdout.write(`imported workflow ${imported.workflow.id} (${imported.workflow.name})\n`);
      for (const child of imported.children) process.stdout.write(`  and ${child.ref} as workflow ${child.id} (${child.name})\n`);
      for (const warning of imported.warnings) process.stderr.write(`warning: ${warning.node ? `${warning.node}: ` : ""}${warning.reason}\n`);
    });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isBundle = (value: unknown) => isObject(value) && value.format === BUNDLE_FORMAT;
const isN8n = (value: unknown) => isObject(value) && Array.isArray(value.nodes);

function readJson(file: string): unknown {
  const name = file === "-" ? "stdin" : file;
  try {
    return JSON.parse(readFileSync(file === "-" ? 0 : file, "utf8"));
  } catch (error) {
    throw new CliError(`${name}: ${(error as Error).message}`);
  }
}

function connectionMap(pairs: string[]): Record<string, number> | undefined {
  if (pairs.length === 0) return undefined;
  const map: Record<string, number> = {};
  for (const pair of pairs) {
    const [platform, id] = pair.split("=");
    if (!platform || !id) throw new CliError(`--connection takes platform=connection_id, not "${pair}".`);
    map[platform] = idArg(id, `The connection id for ${platform}`);
  }
  return map;
}
