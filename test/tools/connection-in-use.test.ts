import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_AGE_MS } from "../../src/core/isolate-cache";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";

/**
 * Tool calls read their connection from a per-isolate record (src/connections/in-use.ts), like
 * credentials. A change through the API is used at once by the isolate that made it; a change
 * only the database shows (as one made by another isolate looks from here) within MAX_AGE_MS.
 */
const scenarioUrl = (scenario: string) => `${env.TEST_MCP_PROXY_URL}/s/${scenario}/mcp`;
const callsSeenBy = async (scenario: string) =>
  ((await (await fetch(`${env.TEST_MCP_PROXY_URL}/__mcp/${scenario}`)).json()) as { messages: { method: string }[] }).messages.filter(
    (m) => m.method === "tools/call",
  ).length;

async function mcpConnection() {
  const { key } = await newApiKey(await newUser());
  const first = crypto.randomUUID();
  const response = await call("/v1/connections", { token: key, json: { platform: "mcp", name: "Everything", config: { url: scenarioUrl(first) } } });
  expect(response.status).toBe(201);
  const { connection_id: id } = await json(response);
  const echo = (message: string) => call("/v1/tools/execute", { token: key, json: { name: `mcp_${id}_echo`, arguments: { message } } });
  return { key, id, first, echo };
}

describe("connections kept for tool calls", () => {
  it("use new settings saved through the API from the next call on", async () => {
    const mcp = await mcpConnection();
    expect(await json(await mcp.echo("to the first server"))).toMatchObject({ success: true });
    expect(await callsSeenBy(mcp.first)).toBe(1);

    const second = crypto.randomUUID();
    const saved = await call(`/v1/connections/${mcp.id}`, {
      method: "PUT",
      token: mcp.key,
      json: { name: "Everything, moved", status: "active", config: { url: scenarioUrl(second) } },
    });
    expect(saved.status).toBe(200);
    expect(await json(await mcp.echo("to the second server"))).toMatchObject({ success: true });
    expect(await callsSeenBy(second)).toBe(1);
    expect(await callsSeenBy(mcp.first)).toBe(1);
  });

  it("refuse a connection deleted through the API at once", async () => {
    const mcp = await mcpConnection();
    expect((await mcp.echo("before")).status).toBe(200);
    expect((await call(`/v1/connections/${mcp.id}`, { method: "DELETE", token: mcp.key })).status).toBe(204);
    await expectProblem(await mcp.echo("after"), 404, "not_found");
  });

  it("refuse a connection deleted by another isolate within the bound", { timeout: 20_000 }, async () => {
    const mcp = await mcpConnection();
    expect((await mcp.echo("before")).status).toBe(200);
    await env.DB.prepare("DELETE FROM connections WHERE id = ?").bind(mcp.id).run();
    const started = Date.now();
    for (;;) {
      const response = await mcp.echo("still there?");
      if (response.status === 404) break;
      expect(response.status).toBe(200);
      expect(Date.now() - started).toBeLessThanOrEqual(MAX_AGE_MS + 500);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(Date.now() - started).toBeLessThanOrEqual(MAX_AGE_MS + 500);
  });

  it("never serve one user's connection to another", async () => {
    const mcp = await mcpConnection();
    expect((await mcp.echo("mine")).status).toBe(200);
    const { key: stranger } = await newApiKey(await newUser());
    const response = await call("/v1/tools/execute", { token: stranger, json: { name: `mcp_${mcp.id}_echo`, arguments: { message: "theirs" } } });
    await expectProblem(response, 404, "not_found");
  });
});
