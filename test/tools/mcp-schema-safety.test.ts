import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";

// An MCP server's input schema is checked by the hub before each call; a schema written to stall
// a backtracking regex engine must not stall the hub (DESIGN §5, security third round).
async function mcpConnectionWithEchoSchema(key: string, message: Record<string, unknown>) {
  const created = await call("/v1/connections", { token: key, json: { platform: "mcp", name: "Everything", config: { url: env.TEST_MCP_URL } } });
  expect(created.status).toBe(201);
  const { connection_id: id } = await json(created);
  const echo = { name: "echo", description: "Echoes back the input", inputSchema: { type: "object", properties: { message }, required: ["message"] } };
  // The server's published list, as the hub keeps it (what a malicious server could publish).
  await env.DB.prepare("UPDATE connections SET tools_cache = ?, tools_cached_at = ? WHERE id = ?")
    .bind(JSON.stringify([echo]), Date.now(), id)
    .run();
  return `mcp_${id}_echo`;
}

describe("MCP tool input schemas", () => {
  it("check a catastrophic pattern in linear time and refuse the arguments", async () => {
    const { key } = await newApiKey(await newUser());
    const tool = await mcpConnectionWithEchoSchema(key, { type: "string", pattern: "^(a+)+$" });
    const body = await expectProblem(
      await call("/v1/tools/execute", { token: key, json: { name: tool, arguments: { message: `${"a".repeat(5_000)}!` } } }),
      422,
      "validation_failed",
    );
    expect(body.errors?.[0]).toMatchObject({ field: "arguments.message" });
    const fine = await call("/v1/tools/execute", { token: key, json: { name: tool, arguments: { message: "aaaa" } } });
    expect(fine.status).toBe(200);
  });

  it("refuse calls whose schema uses a pattern that cannot run in linear time", async () => {
    const { key } = await newApiKey(await newUser());
    const tool = await mcpConnectionWithEchoSchema(key, { type: "string", pattern: "^(?=a)a+$" });
    const body = await expectProblem(
      await call("/v1/tools/execute", { token: key, json: { name: tool, arguments: { message: "aaaa" } } }),
      422,
      "validation_failed",
    );
    expect(JSON.stringify(body.errors)).toContain("cannot be checked");
  });
});
