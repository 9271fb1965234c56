import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHubClient, type HubClient } from "../../client/src/index.ts";
import { SCHEMA_FILE, schemaTypes, REGENERATE } from "../../client/scripts/schema-types.ts";
import { startHub } from "../../scripts/start.mjs";
import { freePort } from "../../scripts/free-port.mjs";
import { startPlatformFake } from "../fakes/platform-fake.mjs";

/**
 * The `hub` command (client/bin/hub.mjs) as a person runs it, against one started hub: it signs in,
 * lists, reads and runs workflows, follows runs, deploys and runs agents, decides approvals, and
 * speaks JSON with --json. Its typed client must match the hub's OpenAPI document.
 */
const HUB_BIN = path.resolve(import.meta.dirname, "../../client/bin/hub.mjs");
let hub: Awaited<ReturnType<typeof startHub>>;
let fake: { close(): Promise<void> };
let fakeOrigin = "";
let dir = "";
let configFile = "";
let client: HubClient;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "hub-cli-"));
  configFile = path.join(dir, "config", "hub.json");
  const fakePort = await freePort();
  fake = await startPlatformFake(fakePort);
  fakeOrigin = `http://127.0.0.1:${fakePort}`;
  hub = await startHub({ port: await freePort(), persistTo: path.join(dir, "state"), stdio: "pipe", tick: false });
}, 240_000); // wrangler builds the Worker and applies every migration first; slow on a busy machine

afterAll(async () => {
  await hub?.stop();
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `hub <args>` with this test's configuration file, to its end. */
function cli(...args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(process.execPath, [HUB_BIN, ...args], { env: cliEnv() }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function cliEnv() {
  const { HUB_TOKEN: _token, HUB_URL: _url, HUB_WORKSPACE: _workspace, ...env } = process.env;
  return { ...env, HUB_CONFIG: configFile };
}

/** `hub --json <args>`, which must succeed and print JSON. */
async function cliJson(...args: string[]): Promise<any> {
  const outcome = await cli("--json", ...args);
  expect(outcome, outcome.stderr).toMatchObject({ code: 0, stderr: "" });
  return JSON.parse(outcome.stdout);
}

async function newWorkflow(body: { workflow_name: string; steps: Record<string, unknown>[] }, on: HubClient = client) {
  const { data, error } = await on.POST("/v1/workflows", { body: { description: "made by the CLI test", ...body } });
  expect(error).toBeUndefined();
  return data!;
}

describe("the typed client", () => {
  it("sends the credential and the workspace with every call", async () => {
    const seen: Request[] = [];
    const answer = async (request: Request) => {
      seen.push(request);
      return Response.json({ data: [], next_cursor: null });
    };
    await createHubClient({ baseUrl: "http://hub.test", token: "ahk_test_x", workspace: 7, fetch: answer }).GET("/v1/workflows");
    await createHubClient({ baseUrl: "http://hub.test", fetch: answer }).GET("/v1/workflows");
    expect(seen.map((r) => [r.url, r.headers.get("Authorization"), r.headers.get("Hub-Workspace")])).toEqual([
      ["http://hub.test/v1/workflows", "Bearer ahk_test_x", "7"],
      ["http://hub.test/v1/workflows", null, null],
    ]);
  });

  it("has the types of the hub's OpenAPI document", async () => {
    const document = await (await fetch(`${hub.origin}/v1/openapi.json`)).json();
    const checkedIn = readFileSync(SCHEMA_FILE, "utf8").split("\n");
    const current = (await schemaTypes(document)).split("\n");
    const firstChange = current.findIndex((line, i) => line !== checkedIn[i]);
    const stale = firstChange === -1 && current.length === checkedIn.length ? undefined : (firstChange === -1 ? current.length : firstChange) + 1;
    expect(stale, `client/src/schema.d.ts is stale from line ${stale}: run \`${REGENERATE}\``).toBeUndefined();
  });
});

describe("the hub command", () => {
  it("logs in with email and password, keeping the address and a new API key readable by its owner only", async () => {
    const { email, password, apiKey } = hub.credentials!;
    const login = await cli("login", "--url", `${hub.origin}/v1/`, "--email", email, "--password", password);
    expect(login).toMatchObject({ code: 0, stderr: "" });
    expect(login.stdout).toBe(`logged in to ${hub.origin} as ${email}; saved to ${configFile}\n`);
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(configFile, "utf8"));
    expect(saved).toEqual({ url: hub.origin, token: expect.stringMatching(/^ahk_test_/) });
    expect(saved.token).not.toBe(apiKey);
    client = createHubClient({ baseUrl: hub.origin, token: saved.token });

    const refused = await cli("login", "--url", hub.origin, "--email", email, "--password", "not the password");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^hub: .+\n$/);
    expect(JSON.parse(readFileSync(configFile, "utf8"))).toEqual(saved);
  });

  it("lists, reads and runs workflows, and lists, reads and tails their runs", async () => {
    const workflow = await newWorkflow({
      workflow_name: "CLI greeting",
      steps: [
        { id: "greet", type: "set", values: { greeting: "Hello {{input.who}}" } },
        { id: "mint", type: "tool", tool: "uuid_generate", arguments: {} },
      ],
    });
    const list = await cli("workflows", "list");
    expect(list.code).toBe(0);
    expect(list.stdout.split("\n")[0]).toMatch(/^ID\s+NAME\s+STATUS\s+TRIGGER\s+VERSION\s+UPDATED$/);
    expect(list.stdout).toMatch(new RegExp(`^${workflow.id}\\s+CLI greeting\\s`, "m"));
    expect((await cliJson("workflows", "list")).data.map((w: any) => w.id)).toContain(workflow.id);
    expect((await cliJson("workflows", "get", String(workflow.id))).steps).toEqual(workflow.steps);
    expect((await cli("workflows", "get", String(workflow.id))).stdout).toMatch(/^greet\s+set\n^mint\s+tool$/m);

    const run = await cli("workflows", "run", String(workflow.id), "--input", '{"who":"Ada"}', "--wait");
    expect(run, run.stderr).toMatchObject({ code: 0, stderr: "" });
    const lines = run.stdout.trim().split("\n");
    expect(lines.slice(0, 2).map((line) => line.replace(/\s+\d+ ms$/, ""))).toEqual(["succeeded  greet (set)", "succeeded  mint (tool)"]);
    const runId = /^run (exe_\S+) succeeded$/.exec(lines[2]!)?.[1];
    expect(runId, run.stdout).toBeDefined();

    const runs = await cliJson("runs", "list", "--workflow", String(workflow.id), "--status", "succeeded");
    expect(runs.data.map((r: any) => [r.id, r.status])).toEqual([[runId, "succeeded"]]);
    const detail = await cliJson("runs", "get", runId!);
    expect(detail).toMatchObject({
      id: runId,
      input_data: { who: "Ada" },
      steps: [{ step_id: "greet", result: { greeting: "Hello Ada" } }, { step_id: "mint" }],
    });
    expect((await cli("runs", "get", runId!)).stdout).toMatch(/^greet\s+set\s+succeeded\s/m);
    const tail = await cli("runs", "tail", runId!);
    expect(tail.code).toBe(0);
    expect(tail.stdout.trim().split("\n").at(-1)).toBe(`run ${runId} succeeded`);

    // An unknown id: the problem's detail, exit code 1.
    const { error } = await client.GET("/v1/workflows/{workflow_id}", { params: { path: { workflow_id: 999_999_999 } } });
    expect(await cli("workflows", "get", "999999999")).toEqual({ code: 1, stdout: "", stderr: `hub: ${error!.detail}\n` });
  });

  it("exports a workflow to a file and imports it as a new one", async () => {
    const workflow = await newWorkflow({ workflow_name: "CLI portable", steps: [{ id: "greet", type: "set", values: { greeting: "Hi" } }] });
    const file = path.join(dir, "portable.json");
    expect(await cli("workflows", "export", String(workflow.id), "-o", file)).toEqual({ code: 0, stdout: `wrote ${file} (1 workflow)\n`, stderr: "" });
    const bundle = JSON.parse(readFileSync(file, "utf8"));
    expect(bundle).toMatchObject({ format: "hub.workflow/1", workflow: { name: "CLI portable", steps: workflow.steps }, children: [] });
    expect(await cliJson("workflows", "export", String(workflow.id))).toEqual(bundle);

    const imported = await cli("workflows", "import", file);
    expect(imported, imported.stderr).toMatchObject({ code: 0, stderr: "" });
    const copyId = /^imported workflow (\d+) \(CLI portable\)$/m.exec(imported.stdout)?.[1];
    expect(copyId, imported.stdout).toBeDefined();
    expect(Number(copyId)).not.toBe(workflow.id);
    expect((await cliJson("workflows", "get", copyId!)).steps).toEqual(workflow.steps);
  });

  it("deploys a workflow as an agent, lists it and runs it", async () => {
    const workflow = await newWorkflow({ workflow_name: "CLI agent", steps: [{ id: "mint", type: "tool", tool: "uuid_generate", arguments: {} }] });
    const deployed = await cli("agents", "deploy", String(workflow.id));
    expect(deployed.code).toBe(0);
    const agentId = /^deployed agent (\S+) for workflow (\d+)/.exec(deployed.stdout)?.[1];
    expect(agentId, deployed.stdout).toBeDefined();
    expect((await cliJson("agents", "list")).map((a: any) => [a.agent_id, a.workflow_id])).toContainEqual([agentId, workflow.id]);

    const run = await cli("agents", "run", agentId!, "--wait");
    expect(run, run.stderr).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(/^succeeded {2}mint \(tool\).*\nrun exe_\S+ succeeded\n$/);
  });

  it("lists a run's call that waits for a person and denies it, while tail follows the run to its end", async () => {
    const scenario = `cli-${Date.now()}`;
    const answers = [toolCall({ id: "call_sum", name: "math_evaluate", args: { expression: "6 * 7" } }), { body: chatText("I was not allowed to multiply.") }];
    expect((await fetch(`${fakeOrigin}/__script/${scenario}`, { method: "POST", body: JSON.stringify(answers) })).status).toBe(204);
    expect((await client.PUT("/v1/me/tool-policies", { body: { rules: [{ tool: "math_evaluate", action: "ask" }] } })).response.status).toBe(200);
    const connection = await client.POST("/v1/connections", {
      body: { platform: "openai", name: "Model", config: { api_key: "sk-test-0123456789abcdef", base_url: `${fakeOrigin}/s/${scenario}`, model: "fake-gpt" } },
    });
    expect(connection.response.status).toBe(201);
    const workflow = await newWorkflow({
      workflow_name: "CLI approval",
      steps: [{ id: "think", type: "agent", prompt: "Multiply 6 by 7", provider: "openai" }],
    });

    const started = await cliJson("workflows", "run", String(workflow.id));
    const tail = spawn(process.execPath, [HUB_BIN, "runs", "tail", started.execution_id], { env: cliEnv() });
    let tailed = "";
    const parked = new Promise<void>((resolve) =>
      tail.stdout.on("data", (chunk) => {
        tailed += chunk;
        if (tailed.includes("waiting")) resolve();
      }),
    );
    const ended = new Promise<number | null>((resolve) => tail.on("exit", resolve));
    await Promise.race([parked, ended]);
    expect(tailed).toContain("waiting");

    const pending = await cliJson("approvals", "list");
    expect(pending.data).toEqual([expect.objectContaining({ status: "pending", tool: "math_evaluate", execution_id: started.execution_id })]);
    const approvalId: string = pending.data[0].id;
    expect((await cli("approvals", "list")).stdout).toMatch(new RegExp(`^${approvalId}\\s+pending\\s+math_evaluate\\s`, "m"));
    expect(await cli("approvals", "deny", approvalId, "--note", "not today")).toMatchObject({ code: 0, stdout: `${approvalId} denied (math_evaluate)\n` });

    expect(await ended).toBe(0);
    expect(tailed).toMatch(
      new RegExp(
        `^waiting +think \\(agent\\) .*"approval_id":"${approvalId}".*\\n^succeeded +think \\(agent\\).*\\n^run ${started.execution_id} succeeded\\n$`,
        "m",
      ),
    );
    expect((await cliJson("approvals", "list", "--status", "denied")).data.map((a: any) => a.id)).toEqual([approvalId]);
  });

  it("acts in the workspace --workspace names", async () => {
    const team = await client.POST("/v1/workspaces", { body: { name: "CLI team" } });
    expect(team.response.status).toBe(201);
    const workspaceId = String(team.data!.id);
    const teamWorkflow = await newWorkflow(
      { workflow_name: "Team flow", steps: [{ id: "x", type: "set", values: { a: 1 } }] },
      createHubClient({ baseUrl: hub.origin, token: JSON.parse(readFileSync(configFile, "utf8")).token, workspace: workspaceId }),
    );
    expect((await cliJson("--workspace", workspaceId, "workflows", "list")).data.map((w: any) => w.id)).toEqual([teamWorkflow.id]);
    expect((await cliJson("workflows", "list")).data.map((w: any) => w.id)).not.toContain(teamWorkflow.id);
  });
});

const toolCall = (call: { id: string; name: string; args: unknown }) => ({
  body: {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1763800000,
    model: "fake-gpt",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{ id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.args) } }],
        },
        finish_reason: "tool_calls",
      },
    ],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
  },
});

const chatText = (text: string) => ({
  id: "chatcmpl-2",
  object: "chat.completion",
  created: 1763800001,
  model: "fake-gpt",
  choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
  usage: { prompt_tokens: 150, completion_tokens: 30, total_tokens: 180 },
});
