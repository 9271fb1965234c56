#!/usr/bin/env node
// Writes bench/fixtures/tool-catalog.json, the 1,000-tool catalog of bench/tool-search.mjs:
// the hub's own tools as GET /v1/tools?all=true lists them (built-ins and every declared
// platform's tools, from the declarations themselves), then the synthetic MCP servers of
// bench/fixtures/mcp-servers.mjs as one connection each. Deterministic: run it again after
// changing a declaration or a server, and commit the result with the intents that use it.
//   node bench/tool-catalog.mjs
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tsImport } from "tsx/esm/api";
import { MCP_SERVERS } from "./fixtures/mcp-servers.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
export const CATALOG_PATH = path.join(here, "fixtures/tool-catalog.json");
/** Connection ids of the synthetic servers start here (the order of MCP_SERVERS). */
const FIRST_CONNECTION_ID = 101;

async function hubTools() {
  const { PLATFORMS, platformToolName } = await tsImport("../src/connections/platforms/index.ts", import.meta.url);
  const { builtinInfo, platformToolInput } = await tsImport("../src/tools/catalog.ts", import.meta.url);
  const { BUILTIN_TOOLS } = await tsImport("../src/tools/builtin/index.ts", import.meta.url);
  const { inputJsonSchema } = await tsImport("../src/lib/json-schema.ts", import.meta.url);
  const tools = BUILTIN_TOOLS.map(builtinInfo);
  for (const platform of PLATFORMS) {
    if (platform.id === "mcp") continue;
    for (const tool of platform.tools) {
      tools.push({
        name: platformToolName(platform, tool.action),
        title: tool.title,
        description: tool.description,
        source: "platform",
        platform: platform.id,
        connection_id: null,
        input_schema: inputJsonSchema(platformToolInput(tool)),
        available: true,
      });
    }
  }
  return tools;
}

/** "create_pull_request" → "Create pull request", for the servers that give titles. */
const titleOf = (name) => {
  const words = name.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
};

function mcpTools() {
  const tools = [];
  MCP_SERVERS.forEach((server, i) => {
    const connectionId = FIRST_CONNECTION_ID + i;
    for (const [name, description, parameters] of server.tools) {
      const fullName = `${server.prefix ?? ""}${name}`;
      const names = parameters.split(" ").filter(Boolean);
      tools.push({
        name: `mcp_${connectionId}_${fullName}`,
        // As mcpInfo (src/tools/catalog.ts) does: the tool's title, else its name.
        title: server.titles ? titleOf(name) : fullName,
        description,
        source: "mcp",
        platform: "mcp",
        connection_id: connectionId,
        input_schema: { type: "object", properties: Object.fromEntries(names.map((p) => [p, { type: "string" }])), required: names.slice(0, 1) },
        available: true,
      });
    }
  });
  return tools;
}

export async function generateCatalog() {
  return [...(await hubTools()), ...mcpTools()];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tools = await generateCatalog();
  const names = new Set(tools.map((t) => t.name));
  if (names.size !== tools.length) throw new Error("two tools share a name");
  writeFileSync(CATALOG_PATH, `${JSON.stringify(tools)}\n`);
  // Laid out as the project's formatter wants it, so `npm run lint` stays clean.
  execFileSync(path.join(here, "../node_modules/.bin/biome"), ["format", "--write", CATALOG_PATH], { stdio: "ignore" });
  console.log(`wrote ${tools.length} tools (${tools.filter((t) => t.source === "mcp").length} from ${MCP_SERVERS.length} MCP servers) to ${CATALOG_PATH}`);
}
