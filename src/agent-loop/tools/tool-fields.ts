import type { ToolInfo } from "../../tools/types";
import { termOf, wordsOf } from "./words";

export type IndexedField = "name" | "platform" | "title" | "description" | "parameters";

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

/**
 * How many times a field's terms count. A tool's name and title say what it does, and its
 * platform is how people name where it acts ("in HubSpot"); the description and parameters add
 * detail. The fields are weighted before BM25's term-frequency saturation (BM25F), not after:
 * a word found in the name, title and description of one tool then counts little more than in
 * its name alone, so a tool whose every field repeats one common word ("product") does not
 * outrank the one tool that matches a rare word ("translate").
 */
export const FIELD_WEIGHTS: Record<IndexedField, number> = { name: 3, title: 2, platform: 3, description: 1, parameters: 1 };

const FIELDS = Object.keys(FIELD_WEIGHTS) as IndexedField[];

function fieldText(tool: ToolInfo, field: IndexedField): string {
  switch (field) {
    case "name":
      return nameWords(tool);
    case "platform":
      return tool.platform ?? "";
    case "title":
      return tool.title;
    case "description":
      return indexedDescription(tool);
    case "parameters":
      return parameterNames(tool).join(" ");
  }
}

/** The terms of one field: names, parameters and platform ids are identifiers (split at camelCase humps too), the rest is prose. */
export function fieldTerms(tool: ToolInfo, field: IndexedField): string[] {
  const terms: string[] = [];
  for (const word of wordsOf(fieldText(tool, field), field === "name" || field === "parameters" || field === "platform")) {
    const term = termOf(word);
    if (term) terms.push(term);
  }
  return terms;
}

/** A tool as the index reads it: every field's terms, each repeated as many times as its field weighs. */
export function weightedTerms(tool: ToolInfo): string {
  const terms: string[] = [];
  for (const field of FIELDS) {
    const own = fieldTerms(tool, field);
    for (let i = 0; i < FIELD_WEIGHTS[field]; i++) terms.push(...own);
  }
  return terms.join(" ");
}

/** The fields of a tool a term was found in, to explain a match; worked out only for the tools shown. */
export function fieldsWith(tool: ToolInfo, term: string): IndexedField[] {
  return FIELDS.filter((field) => fieldTerms(tool, field).includes(term));
}
