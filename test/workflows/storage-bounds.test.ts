import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { delegatedContext, runtimeFor } from "../../src/core/context";
import type { Template } from "../../src/db/schema";
import worker from "../../src/index";
import { TEMPLATES } from "../../src/templates/catalog";
import { workflowFromTemplate } from "../../src/templates/use-template";
import { findChildRun, startChildRun } from "../../src/executions/child-runs";
import { newLeaseToken } from "../../src/executions/lease";
import { workflowSize } from "../../src/workflows/service";
import { Browser, newEmail } from "../dashboard/browser";
import { ORIGIN, call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow, reaches } from "../helpers/runs";

/**
 * What a workflow may take in storage (issue #23): its size (MAX_WORKFLOW_BYTES) on every path
 * that saves one, the versions kept of it (MAX_WORKFLOW_VERSIONS), lists that read only what they
 * show, and a cancel that reaches every run below, however many there are.
 */

let address = 0;
/** A request through the Worker with these settings (or bindings), waiting for the work it leaves running. */
async function send(
  settings: Record<string, unknown>,
  token: string,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const ctx = createExecutionContext();
  const request = new Request(`${ORIGIN}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/json",
      "CF-Connecting-IP": `203.0.113.${(address++ % 200) + 20}`,
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const response = await worker.fetch(request, { ...env, ...settings } as never, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

const setStep = (value: unknown) => [{ id: "a", type: "set", values: { x: value } }];
const DEFAULT_LIMIT = 256 * 1024;

describe("a workflow's size is bounded (MAX_WORKFLOW_BYTES)", () => {
  it("refuses a create whose set values or tool arguments pass the limit, naming it; one under it is saved", async () => {
    const { key } = await newApiKey(await newUser());
    const over = "x".repeat(DEFAULT_LIMIT);
    const bySet = await expectProblem(
      await call("/v1/workflows", { token: key, json: { workflow_name: "Big", description: "", steps: setStep(over) } }),
      422,
      "limit_exceeded",
    );
    expect(bySet.detail).toContain("256 KiB");
    expect(bySet.detail).toContain("MAX_WORKFLOW_BYTES");
    const byArguments = await call("/v1/workflows", {
      token: key,
      json: { workflow_name: "Big", description: "", steps: [{ id: "t", type: "tool", tool: "text_template", arguments: { template: over } }] },
    });
    await expectProblem(byArguments, 422, "limit_exceeded");
    const byVariables = await call("/v1/workflows", { token: key, json: { workflow_name: "Big", description: "", steps: setStep(1), variables: { v: over } } });
    await expectProblem(byVariables, 422, "limit_exceeded");
    expect((await json(await call("/v1/workflows", { token: key }))).data).toEqual([]);

    const under = await newWorkflow(key, { steps: setStep("x".repeat(DEFAULT_LIMIT - 1000)) });
    expect(under.steps[0].values.x).toHaveLength(DEFAULT_LIMIT - 1000);
  });

  it("counts steps, variables and metadata together on an update, and leaves the workflow as it was", async () => {
    const { key } = await newApiKey(await newUser());
    const third = "x".repeat(DEFAULT_LIMIT / 3);
    const workflow = await newWorkflow(key, { steps: setStep(third), variables: { v: third } });
    const path = `/v1/workflows/${workflow.id}`;
    await expectProblem(await call(path, { method: "PUT", token: key, json: { workflow_metadata: { m: third, n: third } } }), 422, "limit_exceeded");
    await expectProblem(await call(path, { method: "PUT", token: key, json: { steps: setStep(third + third) } }), 422, "limit_exceeded");
    // A change that adds no size (a rename) is not refused.
    expect((await call(path, { method: "PUT", token: key, json: { name: "Renamed" } })).status).toBe(200);
    const now = await json(await call(path, { token: key }));
    expect(now).toMatchObject({ name: "Renamed", version: 1, workflow_metadata: {} });
    expect(now.steps[0].values.x).toBe(third);
  });

  it("holds for a restored version, a template used and a built workflow", async () => {
    const { key } = await newApiKey(await newUser());
    const tight = { MAX_WORKFLOW_BYTES: "2048" };
    const workflow = await newWorkflow(key, { steps: setStep("x".repeat(3000)) });
    const path = `/v1/workflows/${workflow.id}`;
    expect((await call(path, { method: "PUT", token: key, json: { steps: setStep(1) } })).status).toBe(200);
    const restore = await send(tight, key, `${path}/versions/1/restore`, { method: "POST" });
    expect((await expectProblem(restore, 422, "limit_exceeded")).detail).toContain("2 KiB");
    expect(await json(await call(path, { token: key }))).toMatchObject({ version: 2, steps: setStep(1) });

    const template = TEMPLATES[0]!.id;
    await expectProblem(await send({ MAX_WORKFLOW_BYTES: "64" }, key, `/v1/templates/${template}/use`, { method: "POST" }), 422, "limit_exceeded");
    const description = "Generate a uuid for the lead. Then evaluate math expression: 19 * 3.";
    await expectProblem(await send({ MAX_WORKFLOW_BYTES: "64" }, key, "/v1/workflows/build", { body: { description } }), 422, "limit_exceeded");
    expect((await json(await call("/v1/workflows", { token: key }))).data).toHaveLength(1);
  });

  it("refuses a dashboard save past the limit on the page, keeping what was entered", async () => {
    const browser = new Browser();
    await browser.register(newEmail());
    const key = await browser.apiKey();
    const workflow = await newWorkflow(key, { steps: setStep(1), variables: { v: "y".repeat(200 * 1024) } });
    const entered = JSON.stringify(setStep(`${"z".repeat(60 * 1024)}END-OF-DRAFT`));
    const form = {
      step: "save",
      name: "Edited",
      description: "",
      active: "on",
      steps: entered,
      csrf_token: await browser.csrf(`/app/workflows/${workflow.id}`),
    };
    const refused = await browser.request(`/app/workflows/${workflow.id}`, { form });
    expect(refused.status).toBe(422);
    const html = await refused.text();
    expect(html).toContain("MAX_WORKFLOW_BYTES");
    expect(html).toContain("END-OF-DRAFT");
    expect(await json(await call(`/v1/workflows/${workflow.id}`, { token: key }))).toMatchObject({ name: "Test flow", steps: setStep(1) });
  });

  it("leaves every catalog template far below the default limit", () => {
    for (const definition of TEMPLATES) {
      const input = workflowFromTemplate({
        id: definition.id,
        name: definition.name,
        description: definition.description,
        steps: definition.steps,
        variables: definition.variables,
        triggerType: definition.trigger_type,
        triggerConfig: definition.trigger_config,
        requiredConnections: definition.required_connections,
      } as unknown as Template);
      expect(workflowSize(input), definition.id).toBeLessThan(DEFAULT_LIMIT / 16);
    }
  });
});

describe("versions kept per workflow (MAX_WORKFLOW_VERSIONS)", () => {
  const versionsOf = async (id: number) =>
    (await env.DB.prepare("SELECT version FROM workflow_versions WHERE workflow_id = ? ORDER BY version").bind(id).all<{ version: number }>()).results.map(
      (row) => row.version,
    );

  it("drops the oldest as new ones are saved; a dropped version restores as an unknown one", async () => {
    const { key } = await newApiKey(await newUser());
    const three = { MAX_WORKFLOW_VERSIONS: "3" };
    const created = await json(await send(three, key, "/v1/workflows", { body: { workflow_name: "Kept", description: "", steps: setStep(1) } }));
    const path = `/v1/workflows/${created.id}`;
    for (let x = 2; x <= 6; x++) expect((await send(three, key, path, { method: "PUT", body: { steps: setStep(x) } })).status).toBe(200);
    expect(await versionsOf(created.id)).toEqual([4, 5, 6]);
    const listed = await json(await send(three, key, `${path}/versions`));
    expect(listed.data.map((v: any) => [v.version, v.current, v.steps[0].values.x])).toEqual([
      [6, true, 6],
      [5, false, 5],
      [4, false, 4],
    ]);

    await expectProblem(await send(three, key, `${path}/versions/2/restore`, { method: "POST" }), 404, "not_found");
    const restored = await json(await send(three, key, `${path}/versions/4/restore`, { method: "POST" }));
    expect(restored).toMatchObject({ version: 7, steps: setStep(4) });
    expect(await versionsOf(created.id)).toEqual([5, 6, 7]);
  });

  it("lists versions a page at a time", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: setStep(1) });
    const path = `/v1/workflows/${workflow.id}`;
    for (let x = 2; x <= 5; x++) await call(path, { method: "PUT", token: key, json: { steps: setStep(x) } });
    const first = await json(await call(`${path}/versions?limit=3`, { token: key }));
    expect(first.data.map((v: any) => v.version)).toEqual([5, 4, 3]);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await json(await call(`${path}/versions?limit=3&cursor=${first.next_cursor}`, { token: key }));
    expect(second.data.map((v: any) => v.version)).toEqual([2, 1]);
    expect(second.next_cursor).toBeNull();
  });
});

describe("lists read only what they show", () => {
  /** The Worker's settings with a D1 that records the SQL of every statement it prepares. */
  function recording() {
    const statements: string[] = [];
    const DB = new Proxy(env.DB, {
      get(target, property) {
        if (property === "prepare")
          return (query: string) => {
            statements.push(query);
            return target.prepare(query);
          };
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    /** Reads of workflows that bring their steps (a count of them in SQL brings none). */
    const stepReads = () =>
      statements.filter((query) => /from "workflows"/i.test(query) && /"steps"/.test(query.replace(/json_array_length\(("workflows"\.)?"steps"\)/g, "")));
    return { bindings: { DB }, statements, stepReads };
  }

  async function mcpClient(bindings: Record<string, unknown>, token: string) {
    const client = new Client({ name: "hub-test", version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    const transport = new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}`, "CF-Connecting-IP": "198.51.100.202" } },
      fetch: async (input, init) => {
        const ctx = createExecutionContext();
        const response = await worker.fetch(new Request(input, init), { ...env, ...bindings } as never, ctx);
        await waitOnExecutionContext(ctx);
        return response;
      },
    });
    await client.connect(transport);
    return client;
  }

  it("MCP tools/list and hub_list_workflows read no steps, and still describe each workflow", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      workflow_name: "Greeter",
      description: "Greets",
      steps: setStep("x".repeat(5000)),
      variables: { who: "Ada", n: 2 },
    });
    const paused = await newWorkflow(key, { workflow_name: "Resting", steps: setStep(1), status: "paused" });
    const db = recording();
    const client = await mcpClient(db.bindings, key);

    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === `workflow_${workflow.id}`);
    expect(tool).toMatchObject({
      title: "Greeter",
      inputSchema: { type: "object", properties: { who: { type: "string", default: "Ada" }, n: { type: "number", default: 2 } } },
    });
    expect(tool!.description).toContain(`runs workflow ${workflow.id}, version 1`);
    expect(tools.some((t) => t.name === `workflow_${paused.id}`)).toBe(false);

    const listed = await client.callTool({ name: "hub_list_workflows", arguments: {} });
    expect(JSON.parse((listed.content as { text: string }[])[0]!.text).workflows).toEqual([
      { id: paused.id, name: "Resting", description: "for tests", status: "paused", version: 1, tool: null },
      { id: workflow.id, name: "Greeter", description: "Greets", status: "active", version: 1, tool: `workflow_${workflow.id}` },
    ]);
    await client.close();
    expect(db.statements.some((query) => /from "workflows"/i.test(query))).toBe(true);
    expect(db.stepReads()).toEqual([]);
  });

  it("the dashboard's overview and workflow list read no steps, and still count them", async () => {
    const browser = new Browser();
    await browser.register(newEmail());
    const key = await browser.apiKey();
    await newWorkflow(key, {
      workflow_name: "Three steps",
      steps: [...setStep(1), { id: "b", type: "set", values: { y: 2 } }, { id: "c", type: "delay", seconds: 1 }],
    });
    const db = recording();
    const page = async (path: string) => {
      const ctx = createExecutionContext();
      const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
      const request = new Request(`${ORIGIN}${path}`, { headers: { Cookie: cookie, "CF-Connecting-IP": "198.51.100.203" } });
      const response = await worker.fetch(request, { ...env, ...db.bindings } as never, ctx);
      await waitOnExecutionContext(ctx);
      expect(response.status).toBe(200);
      return response.text();
    };
    const list = await page("/app/workflows");
    expect(list).toMatch(/Three steps<\/a><\/td><td[^>]*>active<\/td><td[^>]*>3<\/td>/);
    expect(await page("/")).toContain("Workflows");
    expect(db.statements.some((query) => /from "workflows"/i.test(query))).toBe(true);
    expect(db.stepReads()).toEqual([]);

    // The list is kept per isolate like the API's first page: a change through the hub shows at once.
    const [row] = (await json(await call("/v1/workflows", { token: key }))).data;
    expect((await call(`/v1/workflows/${row.id}`, { method: "PUT", token: key, json: { name: "Renamed", steps: setStep(1) } })).status).toBe(200);
    expect(await (await browser.request("/app/workflows")).text()).toMatch(/Renamed<\/a><\/td><td[^>]*>active<\/td><td[^>]*>1<\/td>/);
  });

  it("GET /v1/workflows still answers each workflow with its steps", async () => {
    const { key } = await newApiKey(await newUser());
    await newWorkflow(key, { steps: setStep(1) });
    const { data } = await json(await call("/v1/workflows", { token: key }));
    expect(data[0].steps).toEqual(setStep(1));
  });
});

describe("cancelling a run with many runs below it", () => {
  it("cancels every descendant, more than one statement can name at once", { timeout: 60_000 }, async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    const leaf = await newWorkflow(key, { steps: setStep(1) });
    const parked = await newWorkflow(key, { steps: [{ id: "hold", type: "wait_for_event", event: "go", timeout_seconds: 3600 }] });
    const started = await json(await call(`/v1/workflows/${parked.id}/execute`, { token: key, json: { input_data: {} } }));
    await reaches(started.execution_id, "waiting");

    // The runner starts one child at a time; this tree is built with the same start, to reach the
    // shape a cancel must handle: 150 runs on one level and 120 on the next.
    const runtime = runtimeFor(env as never);
    const ctx = delegatedContext(runtime, user.id, "test");
    const root = (await findChildRun(runtime, started.execution_id))!;
    const start = (parent: typeof root, label: string) =>
      startChildRun(ctx, parent, `exe_${label}_${crypto.randomUUID().slice(0, 12)}`, leaf.id, {}, newLeaseToken());
    const children = [];
    for (let i = 0; i < 150; i += 25) children.push(...(await Promise.all(Array.from({ length: 25 }, (_, j) => start(root, `c${i + j}`)))));
    for (let i = 0; i < 120; i += 24) await Promise.all(children.slice(i, i + 24).map((child, j) => start(child, `g${i + j}`)));

    const tree = `SELECT status, count(*) AS n FROM executions WHERE root_execution_id = ? GROUP BY status`;
    expect((await env.DB.prepare(tree).bind(root.id).all()).results).toEqual([{ status: "running", n: 270 }]);

    const response = await call(`/v1/executions/${root.id}/cancel`, { method: "POST", token: key });
    expect(response.status).toBe(200);
    expect((await json(response)).status).toBe("cancelled");
    expect((await env.DB.prepare(tree).bind(root.id).all()).results).toEqual([{ status: "cancelled", n: 270 }]);
  });
});
