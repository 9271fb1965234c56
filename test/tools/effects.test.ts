// Every catalog tool has an effect (DESIGN §6.2 "Effects"): platform and built-in tools declare it,
// MCP tools take it from their annotations, custom platform operations from their HTTP method.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PLATFORMS, platformToolName } from "../../src/connections/platforms";
import { TOOL_EFFECTS, effectOfMcpAnnotations, effectOfMethod, mcpAnnotationsOf } from "../../src/core/tool-effects";
import { BUILTIN_TOOLS } from "../../src/tools/builtin";
import { mcpInfo } from "../../src/tools/catalog";
import { addPetstore } from "../custom-platforms/helpers";
import { ORIGIN, call, json, newApiKey, newUser } from "../helpers/api";

/** The whole catalog the caller would see with `query`, in one page. */
async function catalog(key: string, query = "?all=true&limit=1000") {
  const body = await json(await call(`/v1/tools${query}`, { token: key }));
  expect(body.next_cursor).toBeNull();
  return new Map<string, any>(body.tools.map((tool: any) => [tool.name, tool]));
}

const effectOf = (tools: Map<string, any>, name: string) => {
  const tool = tools.get(name);
  if (!tool) throw new Error(`${name} is not in the catalog`);
  return tool.effect;
};

/** An MCP connection whose kept tool list is `tools` (what its server published), fresh so it is not asked again. */
async function mcpConnectionListing(key: string, tools: unknown[]): Promise<number> {
  const created = await call("/v1/connections", { token: key, json: { platform: "mcp", name: "Everything", config: { url: env.TEST_MCP_URL } } });
  expect(created.status).toBe(201);
  const { connection_id: id } = await json(created);
  await env.DB.prepare("UPDATE connections SET tools_cache = ?, tools_cached_at = ? WHERE id = ?").bind(JSON.stringify(tools), Date.now(), id).run();
  return id;
}

const mcpTool = (name: string, annotations?: Record<string, unknown>) => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: "object" },
  ...(annotations ? { annotations } : {}),
});

/** An MCP SDK client on the hub's own /mcp, through the Worker's fetch handler. */
async function hubMcpClient(token: string) {
  const client = new Client({ name: "effects-test", version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  const transport = new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}`, "CF-Connecting-IP": "198.51.100.202" } },
    fetch: (input, init) => exports.default.fetch(new Request(input, init)),
  });
  await client.connect(transport);
  return client;
}

describe("declared effects", () => {
  it("every platform tool and every built-in declares read, write or destructive", () => {
    const undeclared: string[] = [];
    for (const platform of PLATFORMS)
      for (const tool of platform.tools) if (!TOOL_EFFECTS.includes(tool.effect)) undeclared.push(platformToolName(platform, tool.action));
    for (const tool of BUILTIN_TOOLS) if (!TOOL_EFFECTS.includes(tool.effect)) undeclared.push(tool.name);
    expect(undeclared).toEqual([]);
    // Some of each, so a default cannot pass for a declaration.
    const counts = new Map<string, number>();
    for (const tool of PLATFORMS.flatMap((p) => p.tools)) counts.set(tool.effect, (counts.get(tool.effect) ?? 0) + 1);
    for (const effect of TOOL_EFFECTS) expect(counts.get(effect)).toBeGreaterThan(0);
  });

  it("derives MCP effects from annotations and custom operations' from their method", () => {
    expect(effectOfMcpAnnotations({ readOnlyHint: true })).toBe("read");
    expect(effectOfMcpAnnotations({ readOnlyHint: true, destructiveHint: true })).toBe("read");
    expect(effectOfMcpAnnotations({ destructiveHint: true })).toBe("destructive");
    expect(effectOfMcpAnnotations({ readOnlyHint: false, destructiveHint: false })).toBe("write");
    expect(effectOfMcpAnnotations({})).toBe("write");
    expect(effectOfMcpAnnotations(undefined)).toBe("write");
    expect(mcpInfo({ id: 7 }, { name: "wipe", inputSchema: { type: "object" }, annotations: { destructiveHint: true } }, true).effect).toBe("destructive");
    expect(mcpInfo({ id: 7 }, { name: "plain", inputSchema: { type: "object" } }, true).effect).toBe("write");

    expect(["GET", "HEAD", "get", "POST", "PUT", "PATCH", "DELETE"].map(effectOfMethod)).toEqual([
      "read",
      "read",
      "read",
      "write",
      "write",
      "write",
      "destructive",
    ]);
    // The hub's own MCP server says each effect back in the annotations it is read from.
    for (const effect of TOOL_EFFECTS) expect(effectOfMcpAnnotations(mcpAnnotationsOf(effect))).toBe(effect);
  });
});

describe("GET /v1/tools shows each tool's effect", () => {
  it("on every tool, with what platform and built-in tools declare", async () => {
    const { key } = await newApiKey(await newUser());
    const tools = await catalog(key);
    expect(tools.size).toBeGreaterThan(100);
    for (const tool of tools.values()) expect(TOOL_EFFECTS, tool.name).toContain(tool.effect);

    expect(effectOf(tools, "slack_send_message")).toBe("write");
    expect(effectOf(tools, "slack_list_channels")).toBe("read");
    expect(effectOf(tools, "slack_add_reaction")).toBe("write");
    // A POST that only searches or reports is a read.
    expect(effectOf(tools, "hubspot_find_contact")).toBe("read");
    expect(effectOf(tools, "google_analytics_run_report")).toBe("read");
    expect(effectOf(tools, "hubspot_update_contact")).toBe("write");
    expect(effectOf(tools, "resend_send_email")).toBe("write");
    expect(effectOf(tools, "x_delete_post")).toBe("destructive");
    expect(effectOf(tools, "linkedin_delete_post")).toBe("destructive");
    expect(effectOf(tools, "mailchimp_send_campaign")).toBe("destructive");
    expect(effectOf(tools, "mailchimp_create_campaign")).toBe("write");
    expect(effectOf(tools, "stripe_create_refund")).toBe("destructive");
    expect(effectOf(tools, "calendly_cancel_event")).toBe("destructive");

    expect(effectOf(tools, "math_evaluate")).toBe("read");
    expect(effectOf(tools, "http_request")).toBe("write");
    expect(effectOf(tools, "memory_store")).toBe("write");
  });

  it("for MCP tools, from their annotations: readOnlyHint → read, destructiveHint → destructive, else write", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await mcpConnectionListing(key, [
      mcpTool("lookup", { readOnlyHint: true }),
      mcpTool("wipe", { destructiveHint: true }),
      mcpTool("tidy", { readOnlyHint: false, destructiveHint: false }),
      mcpTool("both", { readOnlyHint: true, destructiveHint: true }),
      mcpTool("silent"),
    ]);
    const tools = await catalog(key, "?limit=1000");
    expect(effectOf(tools, `mcp_${id}_lookup`)).toBe("read");
    expect(effectOf(tools, `mcp_${id}_wipe`)).toBe("destructive");
    expect(effectOf(tools, `mcp_${id}_tidy`)).toBe("write");
    expect(effectOf(tools, `mcp_${id}_both`)).toBe("read");
    expect(effectOf(tools, `mcp_${id}_silent`)).toBe("write");

    // The hub's own MCP server passes each effect on as annotations.
    const client = await hubMcpClient(key);
    const listed = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
    expect(listed.get(`mcp_${id}_lookup`)?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(listed.get(`mcp_${id}_wipe`)?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(listed.get(`mcp_${id}_silent`)?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(listed.get("math_evaluate")?.annotations).toMatchObject({ readOnlyHint: true });
    await client.close();
  });

  it("for a live MCP server's tools, from the annotations it publishes", async () => {
    const { key } = await newApiKey(await newUser());
    const created = await call("/v1/connections", { token: key, json: { platform: "mcp", name: "Everything", config: { url: env.TEST_MCP_URL } } });
    expect(created.status).toBe(201);
    const { connection_id: id } = await json(created);
    const tools = await catalog(key, "?limit=1000");
    // server-everything marks echo read-only, and toggle-simulated-logging neither read-only nor destructive.
    expect(effectOf(tools, `mcp_${id}_echo`)).toBe("read");
    expect(effectOf(tools, `mcp_${id}_toggle-simulated-logging`)).toBe("write");
  });

  it("for custom platform operations, by method: GET read, POST and PUT write, DELETE destructive", async () => {
    const { key } = await newApiKey(await newUser());
    const platform = await addPetstore(key);
    const tools = await catalog(key);
    expect(effectOf(tools, `${platform}_find_pets_by_status`)).toBe("read");
    expect(effectOf(tools, `${platform}_get_pet_by_id`)).toBe("read");
    expect(effectOf(tools, `${platform}_add_pet`)).toBe("write");
    expect(effectOf(tools, `${platform}_update_pet`)).toBe("write");
    expect(effectOf(tools, `${platform}_delete_pet`)).toBe("destructive");
    expect(effectOf(tools, `${platform}_delete_order`)).toBe("destructive");
  });
});
