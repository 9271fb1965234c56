import type { ServiceContext } from "../core/context";
import { HubError, type FieldError } from "../core/errors";
import { defaultConnection, getConnection } from "../connections/service";
import { parseToolName } from "../tools/catalog";

type StepLike = Record<string, unknown>;

/** The platforms a template's tool steps call, at any depth (branches, loops). */
export function platformsOf(steps: unknown[]): Set<string> {
  const found = new Set<string>();
  walk(steps, (step) => {
    const tool = typeof step.tool === "string" ? parseToolName(step.tool) : undefined;
    if (tool?.kind === "platform") found.add(tool.platform.id);
  });
  return found;
}

/**
 * The connection each platform's steps will use: the one named in `connections` (which must be
 * the caller's and of that platform), else the caller's own connection of it. A platform the
 * template needs that the caller has not connected is a 422 naming it, before anything is made.
 */
export async function connectionsFor(ctx: ServiceContext, platforms: Set<string>, named: Record<string, number>): Promise<Map<string, number>> {
  const errors: FieldError[] = [];
  const chosen = new Map<string, number>();
  for (const platform of Object.keys(named)) {
    if (!platforms.has(platform)) errors.push(field(platform, `The template uses no ${platform} step.`));
  }
  for (const platform of platforms) {
    const id = named[platform];
    if (id !== undefined) {
      const connection = await getConnection(ctx, id).catch((error) => {
        if (error instanceof HubError && error.code === "not_found") return undefined;
        throw error;
      });
      if (!connection) errors.push(field(platform, `No connection of yours has the id ${id}.`));
      else if (connection.platform !== platform) errors.push(field(platform, `Connection ${id} is a ${connection.platform} connection, not ${platform}.`));
      else chosen.set(platform, id);
      continue;
    }
    const own = await defaultConnection(ctx, platform);
    if (own) chosen.set(platform, own.id);
    else errors.push(field(platform, `The template needs a ${platform} connection: create one, then name it here.`));
  }
  if (errors.length) {
    const missing = errors.map((e) => e.field.replace(/^connections\./, "")).join(", ");
    throw new HubError("validation_failed", `Connections are missing or wrong for: ${missing}.`, { errors });
  }
  return chosen;
}

/** The steps with every platform tool step bound to its platform's chosen connection (`arguments.connection_id`). */
export function bindConnections(steps: unknown[], chosen: Map<string, number>): unknown[] {
  const copy = structuredClone(steps);
  walk(copy, (step) => {
    const tool = typeof step.tool === "string" ? parseToolName(step.tool) : undefined;
    const id = tool?.kind === "platform" ? chosen.get(tool.platform.id) : undefined;
    if (id === undefined) return;
    const args = step.arguments && typeof step.arguments === "object" ? (step.arguments as Record<string, unknown>) : {};
    step.arguments = { ...args, connection_id: id };
  });
  return copy;
}

function walk(steps: unknown[], visit: (step: StepLike) => void) {
  for (const step of steps) {
    if (!step || typeof step !== "object") continue;
    const record = step as StepLike;
    visit(record);
    for (const key of ["then", "else", "steps"]) if (Array.isArray(record[key])) walk(record[key] as unknown[], visit);
  }
}

const field = (platform: string, message: string): FieldError => ({ location: "body", field: `connections.${platform}`, message });
