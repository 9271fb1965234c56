import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, hangUpAfter, json, newApiKey, newUser } from "../helpers/api";

/** An MCP connection to the reference server through the recording proxy, under a scenario of its own. */
async function proxiedConnection() {
  const { key } = await newApiKey(await newUser());
  const scenario = crypto.randomUUID();
  const response = await call("/v1/connections", {
    token: key,
    json: { platform: "mcp", name: "Everything, recorded", config: { url: `${env.TEST_MCP_PROXY_URL}/s/${scenario}/mcp` } },
  });
  expect(response.status).toBe(201);
  const { connection_id } = await json(response);
  const tool = (name: string) => `mcp_${connection_id}_${name}`;
  const traffic = async (): Promise<{ messages: { method: string; session: string | null }[]; sessions: string[] }> =>
    (await fetch(`${env.TEST_MCP_PROXY_URL}/__mcp/${scenario}`)).json();
  /** The sessions that carried tools/call requests, in order of first use. */
  const callSessions = async () => [...new Set((await traffic()).messages.filter((m) => m.method === "tools/call").map((m) => m.session))];
  const echo = async (message: string) => {
    const result = await json(await call("/v1/tools/execute", { token: key, json: { name: tool("echo"), arguments: { message } } }));
    expect(result, JSON.stringify(result)).toMatchObject({ success: true });
    return JSON.stringify(result.result.content);
  };
  return { key, scenario, tool, traffic, callSessions, echo };
}

describe("MCP sessions kept per connection", () => {
  it("serve every call of a connection on one session, concurrent calls each getting their own answer", async () => {
    const mcp = await proxiedConnection();
    for (const n of [1, 2, 3]) expect(await mcp.echo(`one at a time ${n}`)).toContain(`one at a time ${n}`);
    const together = await Promise.all([1, 2, 3, 4, 5].map((n) => mcp.echo(`together ${n}`)));
    expect(together.map((answer, i) => answer.includes(`together ${i + 1}`))).toEqual([true, true, true, true, true]);

    const sessions = await mcp.callSessions();
    expect(sessions).toHaveLength(1);
    const { messages } = await mcp.traffic();
    const onCallSession = messages.filter((m) => m.session === sessions[0]);
    expect(onCallSession.filter((m) => m.method === "tools/call")).toHaveLength(8);
    // No initialize or teardown between the calls: the session stays open.
    expect(onCallSession.some((m) => m.method === "DELETE stream")).toBe(false);
    expect(messages.filter((m) => m.method === "initialize" && m.session === null).length).toBeGreaterThanOrEqual(1);
  });

  it("open a new session, and still answer, when the server has forgotten the old one", async () => {
    const mcp = await proxiedConnection();
    expect(await mcp.echo("before")).toContain("before");
    // The server ends the session (as on expiry or a restart).
    expect((await fetch(`${env.TEST_MCP_PROXY_URL}/__expire/${mcp.scenario}`, { method: "POST" })).status).toBe(204);
    expect(await mcp.echo("after")).toContain("after");
    expect(await mcp.echo("and after that")).toContain("and after that");
    const sessions = await mcp.callSessions();
    expect(sessions).toHaveLength(2);
  });

  it("cancel a call on the server when the caller goes away, and keep the session for the next call", { timeout: 20_000 }, async () => {
    const mcp = await proxiedConnection();
    const response = await call("/v1/tools/execute/stream", {
      token: mcp.key,
      json: { name: mcp.tool("trigger-long-running-operation"), arguments: { duration: 20, steps: 20 } },
    });
    expect(response.status).toBe(200);
    await hangUpAfter(response, "event: progress");

    let messages: { method: string; session: string | null }[] = [];
    const deadline = Date.now() + 10_000;
    while (!messages.some((m) => m.method === "notifications/cancelled") && Date.now() < deadline) {
      await scheduler.wait(50);
      messages = (await mcp.traffic()).messages;
    }
    const cancelled = messages.find((m) => m.method === "notifications/cancelled");
    expect(cancelled).toBeDefined();
    const [session] = await mcp.callSessions();
    expect(cancelled!.session).toBe(session);
    // The cancelled call ends at once, and is audited as such.
    const { data } = await json(await call("/v1/audit-logs", { token: mcp.key }));
    expect(data.find((r: any) => r.tool === mcp.tool("trigger-long-running-operation"))).toMatchObject({
      outcome: "error",
      error_message: "The tool call was cancelled.",
    });

    expect(await mcp.echo("still here")).toContain("still here");
    expect(await mcp.callSessions()).toEqual([session]);
  });
});
