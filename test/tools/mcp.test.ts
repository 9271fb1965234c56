import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";

async function mcpConnection(token: string) {
  const response = await call("/v1/connections", { token, json: { platform: "mcp", name: "Everything server", config: { url: env.TEST_MCP_URL } } });
  expect(response.status).toBe(201);
  return json(response);
}

/** Reads a whole SSE body into {event, data} records. */
async function readEvents(response: Response) {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((block) => block.trim())
    .map((block) => {
      const event = block.match(/^event: (.*)$/m)?.[1];
      const data = block.match(/^data: (.*)$/m)?.[1];
      return { event, data: data ? JSON.parse(data) : undefined };
    });
}

describe("MCP connections (server-everything on loopback)", () => {
  it("tests an MCP config before saving by connecting and listing the server's tools", async () => {
    const { key } = await newApiKey(await newUser());
    const response = await call("/v1/connections/test", { token: key, json: { platform: "mcp", config: { url: env.TEST_MCP_URL } } });
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body).toMatchObject({ success: true, status: "active" });
    expect(body.tools).toEqual(expect.arrayContaining(["echo", "get-sum", "trigger-long-running-operation"]));
  });

  it("lists the server's tools in the catalog under stable unique names and runs them through the hub", async () => {
    const { key } = await newApiKey(await newUser());
    const connection = await mcpConnection(key);
    const catalog = await json(await call("/v1/tools", { token: key }));
    const names = catalog.tools.map((t: any) => t.name);
    const echoName = `mcp_${connection.connection_id}_echo`;
    expect(names).toContain(echoName);
    expect(names).toContain("http_request");
    const echo = catalog.tools.find((t: any) => t.name === echoName);
    expect(echo).toMatchObject({ source: "mcp", platform: "mcp", connection_id: connection.connection_id, available: true });
    expect(echo.input_schema.properties.message).toBeDefined();

    const response = await call("/v1/tools/execute", { token: key, json: { name: echoName, arguments: { message: "hello from the hub" } } });
    expect(response.status).toBe(200);
    const result = await json(response);
    expect(result).toMatchObject({ name: echoName, success: true, error_message: null, call_id: expect.stringMatching(/^call_/) });
    expect(JSON.stringify(result.result.content)).toContain("hello from the hub");

    const sum = await json(
      await call("/v1/tools/execute", { token: key, json: { name: `mcp_${connection.connection_id}_get-sum`, arguments: { a: 2, b: 40 } } }),
    );
    expect(JSON.stringify(sum.result)).toContain("42");
  });

  it("validates MCP tool arguments against the server's schema before calling", async () => {
    const { key } = await newApiKey(await newUser());
    const connection = await mcpConnection(key);
    const body = await expectProblem(
      await call("/v1/tools/execute", { token: key, json: { name: `mcp_${connection.connection_id}_get-sum`, arguments: { a: "two" } } }),
      422,
      "validation_failed",
    );
    expect(body.errors?.map((e) => e.field)).toEqual(expect.arrayContaining([expect.stringMatching(/^arguments/)]));
  });

  it("streams a long-running MCP tool's progress notifications over SSE", async () => {
    const { key } = await newApiKey(await newUser());
    const connection = await mcpConnection(key);
    const response = await call("/v1/tools/execute/stream", {
      token: key,
      json: { name: `mcp_${connection.connection_id}_trigger-long-running-operation`, arguments: { duration: 1, steps: 3 } },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toContain("text/event-stream");
    const events = await readEvents(response);
    const kinds = events.map((e) => e.event);
    expect(kinds[0]).toBe("start");
    expect(events[0]!.data.call_id).toMatch(/^call_/);
    expect(events.at(-1)!.data.call_id).toBe(events[0]!.data.call_id);
    expect(kinds.filter((k) => k === "progress").length).toBe(3);
    expect(events.filter((e) => e.event === "progress").map((e) => e.data.progress)).toEqual([1, 2, 3]);
    expect(kinds.slice(-2)).toEqual(["result", "end"]);
    expect(JSON.stringify(events.at(-2)!.data.result)).toContain("Long running operation completed");
  });

  it("answers 404 for another user's MCP tool", async () => {
    const owner = await newApiKey(await newUser());
    const stranger = await newApiKey(await newUser());
    const connection = await mcpConnection(owner.key);
    await expectProblem(
      await call("/v1/tools/execute", { token: stranger.key, json: { name: `mcp_${connection.connection_id}_echo`, arguments: { message: "x" } } }),
      404,
      "not_found",
    );
  });
});
