import type { ToolInfo } from "../../tools/types";

/** Parameters listed per tool: a schema with more is listed in part (the model sees the whole schema once offered). */
export const MAX_PARAMETERS = 30;

/** Characters of a description that are indexed: some MCP servers describe a tool in pages, and the first part says what it does. */
export const MAX_INDEXED_DESCRIPTION = 2_000;

/** The names of a tool's top-level input parameters, in the schema's order. */
export function parameterNames(tool: ToolInfo): string[] {
  const properties = tool.input_schema?.properties;
  if (!properties || typeof properties !== "object") return [];
  return Object.keys(properties).slice(0, MAX_PARAMETERS);
}

/**
 * The part of a tool's name that says what it does: an MCP tool's `mcp_<connection>_` prefix
 * is the same for all of a server's tools and would only add noise, and a platform tool's
 * `<platform>_` is its platform, indexed once as such.
 */
export function nameWords(tool: ToolInfo): string {
  const { name, platform } = tool;
  if (platform && platform !== "mcp" && name.startsWith(`${platform}_`)) return name.slice(platform.length + 1);
  if (!name.startsWith("mcp_")) return name;
  const rest = name.slice(4);
  const underscore = rest.indexOf("_");
  return underscore > 0 && /^\d+$/.test(rest.slice(0, underscore)) ? rest.slice(underscore + 1) : name;
}

/** The indexed part of a tool's description. */
export function indexedDescription(tool: ToolInfo): string {
  return tool.description.length > MAX_INDEXED_DESCRIPTION ? tool.description.slice(0, MAX_INDEXED_DESCRIPTION) : tool.description;
}
