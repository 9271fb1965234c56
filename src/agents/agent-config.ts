import type { ServiceContext } from "../core/context";
import { validationFailed, type FieldError } from "../core/errors";
import { catalogFor } from "../tools/catalog-service";

/**
 * Refuses an `agent_config.tools` naming a tool the caller's catalog does not know (a typo would
 * otherwise silently leave the agent without the tool). A tool of a platform the caller has not
 * connected yet is known: connecting it later makes it usable.
 */
export async function checkAgentTools(ctx: ServiceContext, config: Record<string, unknown>, field = "agent_config"): Promise<void> {
  const tools = config.tools;
  if (tools === undefined) return;
  if (!Array.isArray(tools)) throw validationFailed([{ location: "body", field: `${field}.tools`, message: "A list of tool names." }]);
  const known = new Set((await catalogFor(ctx, { includeAll: true, all: true })).map((tool) => tool.name));
  const errors: FieldError[] = [];
  tools.forEach((name, i) => {
    if (typeof name !== "string" || !known.has(name)) {
      errors.push({
        location: "body",
        field: `${field}.tools.${i}`,
        message: `No tool is named "${String(name).slice(0, 200)}" (GET /v1/tools?all=true lists them).`,
      });
    }
  });
  if (errors.length) throw validationFailed(errors, "agent_config.tools names tools that do not exist.");
}
