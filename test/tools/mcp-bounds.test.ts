import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_MCP_REFRESHES_PER_BUILD, MCP_CACHE_TTL_MS } from "../../src/tools/catalog";
import { call, json, newApiKey, newUser } from "../helpers/api";

const PROXY = () => env.TEST_MCP_PROXY_URL;

afterEach(() => {
  vi.useRealTimers();
});

/** Requests the recording proxy saw for a scenario: JSON-RPC methods, and `<VERB> stream` for the rest. */
async function traffic(scenario: string): Promise<{ method: string }[]> {
  return (await (await fetch(`${PROXY()}/__mcp/${scenario}`)).json<{ messages: { method: string }[] }>()).messages;
}

async function failWith(scenario: string, status: number) {
  expect((await fetch(`${PROXY()}/__fail/${scenario}`, { method: "POST", body: JSON.stringify({ status }) })).status).toBe(204);
}

async function mcpConnection(key: string, scenario: string): Promise<number> {
  const response = await call("/v1/connections", {
    token: key,
    json: { platform: "mcp", name: `Recorded ${scenario}`, config: { url: `${PROXY()}/s/${scenario}/mcp` } },
  });
  expect(response.status).toBe(201);
  return (await json(response)).connection_id;
}

/** Makes the cached tool list of a connection older than the TTL (or sets one), as if time had passed. */
async function ageToolList(connectionId: number, tools?: unknown[]) {
  const longAgo = Date.now() - MCP_CACHE_TTL_MS - 60_000;
  if (tools) {
    await env.DB.prepare("UPDATE connections SET tools_cache = ?, tools_cached_at = ? WHERE id = ?").bind(JSON.stringify(tools), longAgo, connectionId).run();
  } else {
    await env.DB.prepare("UPDATE connections SET tools_cached_at = ? WHERE id = ?").bind(longAgo, connectionId).run();
  }
}

const toolNames = async (key: string) => (await json(await call("/v1/tools", { token: key }))).tools.map((t: any) => t.name) as string[];

/** The `tools` item of a response's RateLimit header: what is left of the caller's tool calls. */
const toolsLeft = (response: Response) => Number(response.headers.get("RateLimit")?.match(/"tools";r=(\d+)/)?.[1]);

describe("the tool catalog asks few MCP servers per build", () => {
  it("asks a failing server once per TTL, serving its last list meanwhile, however often the catalog is built", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = crypto.randomUUID();
    const id = await mcpConnection(key, scenario);
    expect(await toolNames(key)).toContain(`mcp_${id}_echo`);

    await failWith(scenario, 500);
    await ageToolList(id);
    const before = (await traffic(scenario)).length;
    for (let build = 0; build < 3; build++) expect(await toolNames(key)).toContain(`mcp_${id}_echo`);
    // One request (the 500 answer to initialize) across the three builds.
    expect((await traffic(scenario)).length - before).toBe(1);
    const [connection] = (await json(await call("/v1/connections", { token: key }))).data;
    expect(connection).toMatchObject({ connection_id: id, status: "active" });

    // ?refresh=true still asks at once (and costs a tool call), and the server is back.
    await failWith(scenario, 0);
    const refreshed = await call("/v1/tools?refresh=true", { token: key });
    expect(refreshed.status).toBe(200);
    expect(toolsLeft(refreshed)).toBeLessThan(Number(env.TOOL_RATE_LIMIT_PER_MINUTE));
    expect((await traffic(scenario)).slice(before + 1).some((m) => m.method === "tools/list")).toBe(true);
  });

  it(`asks at most ${MAX_MCP_REFRESHES_PER_BUILD} servers per build, the others on later builds, listing every cached list each time`, async () => {
    const { key } = await newApiKey(await newUser());
    const count = MAX_MCP_REFRESHES_PER_BUILD + 2;
    const scenarios = Array.from({ length: count }, () => crypto.randomUUID());
    const ids: number[] = [];
    for (const scenario of scenarios) {
      ids.push(await mcpConnection(key, scenario));
      await failWith(scenario, 503);
    }
    const cachedTool = { name: "cached_tool", description: "from the last list", inputSchema: { type: "object" } };
    for (const id of ids) await ageToolList(id, [cachedTool]);

    const asked = async () => (await Promise.all(scenarios.map(async (scenario) => (await traffic(scenario)).length))).map((n) => n > 0);
    const listed = async () => (await toolNames(key)).filter((name) => name.endsWith("_cached_tool")).length;

    expect(await listed()).toBe(count);
    const first = await asked();
    expect(first.filter(Boolean)).toHaveLength(MAX_MCP_REFRESHES_PER_BUILD);
    expect(await listed()).toBe(count);
    expect((await asked()).filter(Boolean)).toHaveLength(count);
    // Every list has been asked for within the TTL: the next build asks none.
    const totals = async () => Promise.all(scenarios.map(async (scenario) => (await traffic(scenario)).length));
    const settled = await totals();
    expect(await listed()).toBe(count);
    expect(await totals()).toEqual(settled);
  });
});

describe("listing an MCP server's tools is bounded", () => {
  it("stops paging an endless list once the kept tools reach the byte bound, and a connection test costs a tool call", async () => {
    // The limiter counts in one-minute windows by the clock, which the object shares with this test.
    vi.useFakeTimers({ toFake: ["Date"], now: (Math.floor(Date.now() / 60_000) + 1) * 60_000 + 1_000 });
    const { key } = await newApiKey(await newUser());
    const scenario = crypto.randomUUID();
    // Pages of 10 tools of about 100 KB each, and always another page.
    const set = await fetch(`${PROXY()}/__pages/${scenario}`, { method: "POST", body: JSON.stringify({ tools_per_page: 10, description_bytes: 100_000 }) });
    expect(set.status).toBe(204);

    const first = await call("/v1/tools/execute", { token: key, json: { name: "math_evaluate", arguments: { expression: "1 + 1" } } });
    const left = toolsLeft(first);
    expect(left).toBe(Number(env.TOOL_RATE_LIMIT_PER_MINUTE) - 1);

    const tested = await json(await call("/v1/connections/test", { token: key, json: { platform: "mcp", config: { url: `${PROXY()}/s/${scenario}/mcp` } } }));
    expect(tested).toMatchObject({ success: true, status: "active" });
    // 1.5 MiB of tools: the first page, and half of the second.
    expect(tested.tools).toHaveLength(15);
    expect((await traffic(scenario)).filter((m) => m.method === "tools/list")).toHaveLength(2);

    const after = await call("/v1/tools/execute", { token: key, json: { name: "math_evaluate", arguments: { expression: "1 + 1" } } });
    expect(toolsLeft(after)).toBe(left - 2);
  });

  it("a connection test refused for the tool-call limit reaches no server", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: (Math.floor(Date.now() / 60_000) + 1) * 60_000 + 1_000 });
    const { key } = await newApiKey(await newUser());
    const scenario = crypto.randomUUID();
    let response: Response | undefined;
    for (let i = 0; i < Number(env.TOOL_RATE_LIMIT_PER_MINUTE) && response?.status !== 429; i++) {
      response = await call("/v1/tools/execute", { token: key, json: { name: "math_evaluate", arguments: { expression: "2 + 2" } } });
    }
    const refused = await call("/v1/connections/test", { token: key, json: { platform: "mcp", config: { url: `${PROXY()}/s/${scenario}/mcp` } } });
    expect(refused.status).toBe(429);
    expect(await traffic(scenario)).toEqual([]);
  });
});
