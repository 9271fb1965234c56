import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ORIGIN, call, json, newApiKey, newUser } from "../helpers/api";

/** An MCP SDK client talking to the hub's /mcp through the Worker's own fetch handler. */
async function mcpClient(token: string) {
  const client = new Client({ name: "hub-test", version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  const transport = new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}`, "CF-Connecting-IP": "198.51.100.201" } },
    fetch: (input, init) => exports.default.fetch(new Request(input, init)),
  });
  await client.connect(transport);
  return client;
}

async function newWorkflow(key: string, body: Record<string, unknown>) {
  const response = await call("/v1/workflows", { token: key, json: { workflow_name: "MCP flow", description: "Greets someone", ...body } });
  expect(response.status).toBe(201);
  return json(response);
}

async function auditOf(key: string, tool: string) {
  const { data } = await json(await call("/v1/audit-logs", { token: key }));
  return data.filter((r: any) => r.tool === tool);
}

describe("the hub as an MCP server", () => {
  it("answers 401 with the resource metadata address, which names this origin as the authorization server", async () => {
    const response = await call("/mcp", { json: { jsonrpc: "2.0", id: 1, method: "tools/list" } });
    expect(response.status).toBe(401);
    expect(response.headers.get("WWW-Authenticate")).toMatch(/^Bearer resource_metadata="http:\/\/hub\.test\/\.well-known\/oauth-protected-resource"/);
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const metadata = await json(await call(path));
      expect(metadata).toMatchObject({ resource: `${ORIGIN}/mcp`, authorization_servers: [ORIGIN] });
    }
    const wrong = await call("/mcp", { token: "ahk_test_not-a-key", json: { jsonrpc: "2.0", id: 1, method: "tools/list" } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("WWW-Authenticate")).toContain('resource_metadata="http://hub.test/.well-known/oauth-protected-resource"');
    expect(wrong.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
  });

  it("lists the caller's catalog, active workflows as workflow_<id> and the hub's own tools", async () => {
    const { key } = await newApiKey(await newUser());
    const active = await newWorkflow(key, { variables: { name: "Ada", count: 2 }, steps: [{ id: "hi", type: "set", values: { greeting: "Hi {{name}}" } }] });
    const paused = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    await call(`/v1/workflows/${paused.id}`, { method: "PUT", token: key, json: { status: "paused" } });
    const client = await mcpClient(key);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(["math_evaluate", "http_request", "hub_list_workflows", "hub_get_execution", "hub_list_agents", "hub_execute_agent"]),
    );
    expect(names).toContain(`workflow_${active.id}`);
    expect(names).not.toContain(`workflow_${paused.id}`);
    const workflowTool = tools.find((t) => t.name === `workflow_${active.id}`)!;
    expect(workflowTool.inputSchema.properties).toEqual({ name: { type: "string", default: "Ada" }, count: { type: "number", default: 2 } });
    await client.close();
  });

  it("runs a catalog tool with the same result as REST, rate limited and audited", async () => {
    const { key } = await newApiKey(await newUser());
    const client = await mcpClient(key);
    const result = await client.callTool({ name: "math_evaluate", arguments: { expression: "6 * 7" } });
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({ name: "math_evaluate", success: true, error_message: null, call_id: expect.stringMatching(/^call_/) });
    const rest = await json(await call("/v1/tools/execute", { token: key, json: { name: "math_evaluate", arguments: { expression: "6 * 7" } } }));
    expect((result.structuredContent as any).result).toEqual(rest.result);
    expect(await auditOf(key, "math_evaluate")).toEqual(expect.arrayContaining([expect.objectContaining({ source: "mcp", outcome: "success" })]));

    // Bad arguments are a tool error the model can read; an unknown tool is a protocol error.
    const bad = await client.callTool({ name: "math_evaluate", arguments: { expression: 42 } });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({ error: "validation_failed" });
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/No tool named/);
    await client.close();
  });

  it("sends progress notifications and honours cancellation", async () => {
    const { key } = await newApiKey(await newUser());
    const client = await mcpClient(key);
    const progress: number[] = [];
    const done = await client.callTool({ name: "wait", arguments: { seconds: 2 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(done.isError).toBe(false);
    expect(progress).toEqual([1, 2]);

    const abort = new AbortController();
    const cancelled = client.callTool({ name: "wait", arguments: { seconds: 20 } }, undefined, {
      signal: abort.signal,
      onprogress: () => abort.abort(new Error("enough")),
    });
    await expect(cancelled).rejects.toThrow();
    const hungUpAt = Date.now();
    let records: any[] = [];
    while (records.length < 2 && Date.now() - hungUpAt < 10_000) {
      await scheduler.wait(100);
      records = await auditOf(key, "wait");
    }
    const stopped = records.find((r) => r.outcome === "error");
    expect(stopped).toMatchObject({ error_message: "The tool call was cancelled.", source: "mcp" });
    expect(stopped.duration_ms).toBeLessThan(10_000);
    await client.close();
  }, 20_000);

  it("runs a workflow as a tool and answers with the finished execution, which hub_get_execution shows again", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { variables: { name: "Ada" }, steps: [{ id: "hi", type: "set", values: { greeting: "Hi {{name}}" } }] });
    const client = await mcpClient(key);
    const ran = await client.callTool({ name: `workflow_${workflow.id}`, arguments: { name: "Grace" } });
    expect(ran.isError).toBe(false);
    const execution = ran.structuredContent as any;
    expect(execution).toMatchObject({ workflow_id: workflow.id, status: "succeeded", input_data: { name: "Grace" } });
    expect(execution.steps).toEqual([expect.objectContaining({ step_id: "hi", status: "succeeded", result: { greeting: "Hi Grace" } })]);

    const again = await client.callTool({ name: "hub_get_execution", arguments: { execution_id: execution.id } });
    expect(again.structuredContent).toMatchObject({ id: execution.id, status: "succeeded" });
    const listed = await client.callTool({ name: "hub_list_workflows", arguments: {} });
    expect((listed.structuredContent as any).workflows).toEqual([expect.objectContaining({ id: workflow.id, tool: `workflow_${workflow.id}` })]);

    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    const byAgent = await client.callTool({ name: "hub_execute_agent", arguments: { agent_id: agent.agent_id, input: { name: "Linus" } } });
    expect(byAgent.structuredContent).toMatchObject({ status: "succeeded", agent_id: agent.agent_id, input_data: { name: "Linus" } });

    // Someone else's execution is not there.
    const other = await mcpClient((await newApiKey(await newUser())).key);
    const hidden = await other.callTool({ name: "hub_get_execution", arguments: { execution_id: execution.id } });
    expect(hidden.isError).toBe(true);
    expect(hidden.structuredContent).toMatchObject({ error: "not_found" });
    await client.close();
    await other.close();
  });

  it("lists agents with their triggers, and runs one standing in for its trigger with a sample event or item", async () => {
    const { key } = await newApiKey(await newUser());
    const steps = [{ id: "seen", type: "set", values: { type: '{{input.event_type | default: "an item"}}' } }];
    const stripe = await newWorkflow(key, { trigger_type: "webhook", trigger_config: { verify: "stripe", event_types: ["invoice.paid"] }, steps });
    const feed = await newWorkflow(key, {
      trigger_type: "poll",
      trigger_config: {
        tool: "http_request",
        arguments: { url: `${env.TEST_FAKE_URL}/s/mcp-feed/items` },
        interval_seconds: 3600,
        items_path: "body.items",
        id_path: "id",
      },
      steps,
    });
    const hook = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: stripe.id } }));
    const poller = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: feed.id } }));
    const client = await mcpClient(key);

    const listed = (await client.callTool({ name: "hub_list_agents", arguments: {} })).structuredContent as any;
    const byId = Object.fromEntries(listed.agents.map((a: any) => [a.agent_id, a]));
    expect(byId[hook.agent_id].trigger).toMatchObject({
      type: "webhook",
      verify: "stripe",
      event_types: ["invoice.paid"],
      webhook_url: `${ORIGIN}/v1/hooks/agents/${hook.agent_id}`,
    });
    expect(byId[poller.agent_id].trigger).toMatchObject({ type: "poll", interval_seconds: 3600 });
    expect(JSON.stringify(listed)).not.toContain("whsec_");

    const event = { id: "evt_1", object: "event", type: "invoice.paid", data: { object: { amount_paid: 4200 } } };
    const ran = await client.callTool({ name: "hub_execute_agent", arguments: { agent_id: hook.agent_id, event, event_type: "invoice.paid" } });
    expect(ran.structuredContent).toMatchObject({
      status: "succeeded",
      input_data: { event, event_type: "invoice.paid", event_id: expect.stringMatching(/^manual_/) },
    });
    const polled = await client.callTool({ name: "hub_execute_agent", arguments: { agent_id: poller.agent_id, item: { id: "42", title: "New post" } } });
    expect(polled.structuredContent).toMatchObject({ status: "succeeded", input_data: { item: { id: "42", title: "New post" } } });

    // An item for a webhook agent, or two stand-ins at once, is refused with the field named.
    const wrong = await client.callTool({ name: "hub_execute_agent", arguments: { agent_id: hook.agent_id, item: { id: "1" } } });
    expect(wrong.isError).toBe(true);
    expect(JSON.stringify(wrong.structuredContent)).toContain("not a poll");
    const both = await client.callTool({ name: "hub_execute_agent", arguments: { agent_id: hook.agent_id, input: {}, event } });
    expect(both.isError).toBe(true);
    await client.close();
  });

  it("offers the templates as template://<id> resources", async () => {
    const { key } = await newApiKey(await newUser());
    const client = await mcpClient(key);
    const { resources } = await client.listResources();
    expect(resources.length).toBeGreaterThan(5);
    const first = resources[0]!;
    expect(first.uri).toMatch(/^template:\/\//);
    const read = await client.readResource({ uri: first.uri });
    const content = read.contents[0] as { text: string; mimeType: string };
    expect(content.mimeType).toBe("application/json");
    expect(JSON.parse(content.text)).toMatchObject({ id: first.uri.slice("template://".length), steps: expect.any(Array) });
    await expect(client.readResource({ uri: "template://no-such-template" })).rejects.toThrow(/not found/i);
    await client.close();
  });

  it("applies scopes as REST does: a read-only credential lists but cannot run", async () => {
    const { key } = await newApiKey(await newUser(), { scopes: ["data:read"] });
    const client = await mcpClient(key);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const refused = await call("/mcp", {
      token: key,
      headers: { Accept: "application/json, text/event-stream" },
      json: { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "math_evaluate", arguments: { expression: "1" } } },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("WWW-Authenticate")).toContain('error="insufficient_scope", scope="workflow:execute"');
    await client.close();
  });

  it("negotiates older protocol revisions and answers the current one by default", async () => {
    const { key } = await newApiKey(await newUser());
    const initialize = async (protocolVersion: string) => {
      const response = await call("/mcp", {
        token: key,
        headers: { Accept: "application/json, text/event-stream" },
        json: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion, capabilities: {}, clientInfo: { name: "old", version: "0" } } },
      });
      expect(response.status).toBe(200);
      const data = (await response.text()).match(/^data: (.*)$/m)?.[1];
      return JSON.parse(data!).result;
    };
    for (const version of ["2024-11-05", "2025-03-26", "2025-06-18"]) expect((await initialize(version)).protocolVersion).toBe(version);
    const current = await initialize("2099-01-01");
    expect(current.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(current.serverInfo).toMatchObject({ name: "agent-automation-hub" });
    expect(current.capabilities).toMatchObject({ tools: {}, resources: {} });
  });

  it("refuses batches (one request, one message) and arguments of the wrong shape", async () => {
    const { key } = await newApiKey(await newUser());
    const message = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "uuid_generate", arguments: {} } });
    const batch = await call("/mcp", { token: key, headers: { Accept: "application/json, text/event-stream" }, json: [message(1), message(2)] });
    expect(batch.status).toBe(400);
    expect((await json(batch)).error.message).toContain("Batches are not supported");
    const client = await mcpClient(key);
    const bad = await client.callTool({ name: "hub_execute_agent", arguments: { agent_id: "agt_x", input: "not an object" } });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({ error: "validation_failed" });
    await client.close();
  });

  it("keeps no sessions: GET and DELETE answer 405", async () => {
    const { key } = await newApiKey(await newUser());
    expect((await call("/mcp", { token: key, headers: { Accept: "text/event-stream" } })).status).toBe(405);
    expect((await call("/mcp", { token: key, method: "DELETE" })).status).toBe(405);
  });
});
