import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, json, newApiKey, newUser } from "../helpers/api";

async function connectionOf(key: string, id: number) {
  const { data } = await json(await call("/v1/connections", { token: key }));
  return data.find((c: any) => c.connection_id === id);
}

describe("MCP transports and server health", () => {
  it("falls back to HTTP+SSE for a server that does not speak streamable HTTP", async () => {
    const { key } = await newApiKey(await newUser());
    const tested = await json(await call("/v1/connections/test", { token: key, json: { platform: "mcp", config: { url: env.TEST_MCP_SSE_URL } } }));
    expect(tested).toMatchObject({ success: true, status: "active" });
    expect(tested.tools).toContain("echo");

    const created = await json(
      await call("/v1/connections", { token: key, json: { platform: "mcp", name: "Legacy SSE", config: { url: env.TEST_MCP_SSE_URL } } }),
    );
    const result = await json(
      await call("/v1/tools/execute", { token: key, json: { name: `mcp_${created.connection_id}_echo`, arguments: { message: "over sse" } } }),
    );
    expect(result.success).toBe(true);
    expect(JSON.stringify(result.result)).toContain("over sse");
  });

  it("marks an MCP connection whose server refuses its credentials, and clears the flag once fixed", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = `mcp401${crypto.randomUUID().replace(/-/g, "")}`;
    await fetch(`${env.TEST_FAKE_URL}/__respond/${scenario}`, { method: "POST", body: JSON.stringify({ status: 401, body: { error: "invalid_token" } }) });
    const created = await json(
      await call("/v1/connections", {
        token: key,
        json: { platform: "mcp", name: "Locked", config: { url: `${env.TEST_FAKE_URL}/s/${scenario}/mcp`, token: "wrong-token" } },
      }),
    );
    const catalog = await json(await call("/v1/tools?include_all=true", { token: key }));
    expect(catalog.tools.filter((t: any) => t.connection_id === created.connection_id)).toEqual([]);
    const flagged = await connectionOf(key, created.connection_id);
    expect(flagged).toMatchObject({ status: "error", error_message: expect.stringContaining("401") });
    // The token went to the server as a bearer credential.
    const seen = await (await fetch(`${env.TEST_FAKE_URL}/__requests/${scenario}`)).json<any[]>();
    expect(seen[0].headers.authorization).toBe("Bearer wrong-token");

    // Moving the connection to another server while keeping the stored token is refused: the
    // token would go somewhere it never went before.
    const moved = await call(`/v1/connections/${created.connection_id}`, {
      method: "PUT",
      token: key,
      json: { name: "Unlocked", status: "error", config: { url: env.TEST_MCP_URL, token: "••••" } },
    });
    expect(moved.status).toBe(422);
    expect((await json(moved)).errors).toEqual([expect.objectContaining({ field: "config.token" })]);
    // With the token entered again, the move is fine, and the connection recovers on next use.
    const fixed = await call(`/v1/connections/${created.connection_id}`, {
      method: "PUT",
      token: key,
      json: { name: "Unlocked", status: "error", config: { url: env.TEST_MCP_URL, token: "a-token-the-demo-server-ignores" } },
    });
    expect(fixed.status).toBe(200);
    const tools = await json(await call("/v1/tools?include_all=true", { token: key }));
    expect(tools.tools.some((t: any) => t.name === `mcp_${created.connection_id}_echo`)).toBe(true);
    expect(await connectionOf(key, created.connection_id)).toMatchObject({ status: "active", error_message: null });
  });
});
