// The MCP server's tools/list pages the catalog as GET /v1/tools does (cursor, nextCursor), so one
// answer is bounded however large the catalog: the first page also carries the hub's own tools.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CATALOG_PAGE_DEFAULT } from "../../src/tools/catalog-build";
import { addPlatform } from "../custom-platforms/helpers";
import { ORIGIN, call, json, newApiKey, newUser } from "../helpers/api";

async function mcpClient(token: string) {
  const client = new Client({ name: "hub-test", version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  const transport = new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}`, "CF-Connecting-IP": "198.51.100.202" } },
    fetch: (input, init) => exports.default.fetch(new Request(input, init)),
  });
  await client.connect(transport);
  return client;
}

/** A connected custom platform of 500 operations: with the built-ins, more tools than one page. */
async function largeCatalog(key: string): Promise<string> {
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < 500; i++) paths[`/items/${i}`] = { get: { operationId: `item${i}`, responses: { 200: { description: "ok" } } } };
  const document = { openapi: "3.1.0", info: { title: "Many", version: "1" }, servers: [{ url: "https://api.example.com" }], paths };
  const added = await addPlatform(key, document);
  expect(added.status).toBe(201);
  const id = (await json(added)).platform_id as string;
  expect((await call("/v1/connections", { token: key, json: { platform: id, name: "Many", config: {} } })).status).toBe(201);
  return id;
}

describe("tools/list pages", () => {
  it("answers a page of the catalog with the hub's tools and a nextCursor, then the rest", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await largeCatalog(key);
    const client = await mcpClient(key);
    const first = await client.listTools();
    expect(first.nextCursor).toEqual(expect.any(String));
    expect(first.tools.filter((tool) => tool.name.startsWith("hub_")).length).toBeGreaterThan(0);
    const catalogOnFirst = first.tools.filter((tool) => !tool.name.startsWith("hub_") && !tool.name.startsWith("workflow_"));
    expect(catalogOnFirst).toHaveLength(CATALOG_PAGE_DEFAULT);
    const second = await client.listTools({ cursor: first.nextCursor });
    expect(second.nextCursor).toBeUndefined();
    expect(second.tools.some((tool) => tool.name.startsWith("hub_"))).toBe(false);
    // Every tool of the platform once, as REST lists them.
    const listed = [...catalogOnFirst, ...second.tools].map((tool) => tool.name);
    expect(listed.filter((name) => name.startsWith(`${id}_`))).toHaveLength(500);
    expect(new Set(listed).size).toBe(listed.length);
    const rest: string[] = [];
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page: any = await json(await call(`/v1/tools?limit=1000${cursor ? `&cursor=${cursor}` : ""}`, { token: key }));
      rest.push(...page.tools.map((tool: any) => tool.name));
      cursor = page.next_cursor;
    }
    expect(listed).toEqual(rest);
    await client.close();
  });

  it("refuses a cursor it did not give as invalid params", async () => {
    const { key } = await newApiKey(await newUser());
    const client = await mcpClient(key);
    await expect(client.listTools({ cursor: "not-a-cursor" })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    await client.close();
  });
});
