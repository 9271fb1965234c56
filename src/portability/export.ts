import { and, eq, inArray } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { connections, type Workflow } from "../db/schema";
import { templateContentOf } from "../templates/sanitize";
import { stripUrlCredentials } from "../templates/url-credentials";
import { getOwnedWorkflow } from "../workflows/service";
import type { WorkflowSettings } from "../workflows/steps";
import { BUNDLE_FORMAT, type Bundle, type BundleWorkflow, type ConnectionRef, MAX_BUNDLE_WORKFLOWS, ROOT_REF } from "./bundle";
import { eachStep, isRecord, mcpToolParts, portableMcpTool } from "./step-walk";

/**
 * `GET /v1/workflows/{id}/export` (DESIGN §6.6): the workflow and every workflow its `workflow`
 * steps and error workflow reach, each once (a circle of workflows ends where it began), with
 * their ids turned into bundle references and their connections into {platform, name}. Secrets
 * are taken out as a published template's are (templates/sanitize.ts): literal credentials
 * become `{{variables}}` with an empty default; notify secrets, owners and times are never read.
 */
export async function exportWorkflow(ctx: ServiceContext, workflowId: number): Promise<Bundle> {
  const root = await getOwnedWorkflow(ctx, workflowId);
  const refs = new Map<number, string>([[root.id, ROOT_REF]]);
  const pending: { id: number; from: string }[] = [];
  const refOf = (id: number, from: Workflow) => {
    let ref = refs.get(id);
    if (ref) return ref;
    if (refs.size >= MAX_BUNDLE_WORKFLOWS) {
      throw new HubError("limit_exceeded", `A bundle holds at most ${MAX_BUNDLE_WORKFLOWS} workflows; this one reaches more through its workflow steps.`);
    }
    ref = `child-${refs.size}`;
    refs.set(id, ref);
    pending.push({ id, from: from.name });
    return ref;
  };
  const required = new Map<string, ConnectionRef>();
  const workflow = await portableWorkflow(ctx, root, ROOT_REF, refOf, required);
  const children: BundleWorkflow[] = [];
  // `pending` grows while it is walked: each child may name more.
  for (let i = 0; i < pending.length; i++) {
    const { id, from } = pending[i]!;
    const row = await getOwnedWorkflow(ctx, id).catch((error) => {
      if (error instanceof HubError && error.code === "not_found") {
        throw new HubError("validation_failed", `Workflow "${from}" runs workflow ${id}, which does not exist any more: change that step, then export again.`);
      }
      throw error;
    });
    children.push(await portableWorkflow(ctx, row, refs.get(id)!, refOf, required));
  }
  return { format: BUNDLE_FORMAT, workflow, children, connections_required: [...required.values()] };
}

type RefOf = (id: number, from: Workflow) => string;

async function portableWorkflow(ctx: ServiceContext, row: Workflow, ref: string, refOf: RefOf, required: Map<string, ConnectionRef>): Promise<BundleWorkflow> {
  // The cleaning drops every `connection_id`: which step used which is noted first.
  const connectionOfStep = new Map<string, number>();
  eachStep(row.steps, (step) => {
    const chosen = isRecord(step.arguments) ? step.arguments.connection_id : undefined;
    if (typeof step.id === "string" && typeof chosen === "number") connectionOfStep.set(step.id, chosen);
  });
  const triggerArguments = isRecord(row.triggerConfig.arguments) ? row.triggerConfig.arguments : {};
  const pollConnection = typeof triggerArguments.connection_id === "number" ? triggerArguments.connection_id : undefined;

  const clean = templateContentOf(row);
  const names = await connectionNames(ctx, row, [...connectionOfStep.values(), ...(pollConnection ? [pollConnection] : []), ...mcpConnectionIds(row)]);
  const connectionRef = (id: number): ConnectionRef => {
    const named = names.get(id);
    if (!named)
      throw new HubError(
        "validation_failed",
        `Workflow "${row.name}" uses connection ${id}, which does not exist any more: change that step, then export again.`,
      );
    required.set(`${named.platform}\u0000${named.name}`, named);
    return named;
  };

  eachStep(clean.steps, (step) => {
    if (step.type === "workflow" && typeof step.workflow_id === "number") {
      step.workflow = { ref: refOf(step.workflow_id, row) };
      delete step.workflow_id;
    }
    if (step.type === "tool") {
      const mcp = mcpToolParts(step.tool);
      const id = mcp?.connectionId ?? connectionOfStep.get(String(step.id));
      if (mcp) step.tool = portableMcpTool(mcp.fragment);
      if (id !== undefined) step.connection = connectionRef(id);
    }
    if (step.type === "agent" && Array.isArray(step.tools)) {
      step.tools = step.tools.map((name) => {
        const mcp = mcpToolParts(name);
        return mcp ? { tool: portableMcpTool(mcp.fragment), connection: connectionRef(mcp.connectionId) } : name;
      });
    }
  });

  const triggerConfig = clean.triggerConfig;
  const pollMcp = mcpToolParts(triggerConfig.tool);
  if (pollMcp) triggerConfig.tool = portableMcpTool(pollMcp.fragment);
  const pollId = pollMcp?.connectionId ?? pollConnection;
  if (pollId !== undefined) triggerConfig.connection = connectionRef(pollId);

  return {
    ref,
    name: clean.name,
    description: clean.description,
    status: row.status,
    trigger_type: row.triggerType,
    trigger_config: triggerConfig,
    variables: Object.fromEntries(Object.entries(clean.variables).map(([name, variable]) => [name, variable.default])),
    workflow_metadata: row.metadata,
    settings: portableSettings(row, refOf),
    steps: clean.steps,
  };
}

/** Settings stay, but the error workflow is a reference and the notify URL loses any credential in it. */
function portableSettings(row: Workflow, refOf: RefOf): Record<string, unknown> {
  const settings = structuredClone(row.settings) as WorkflowSettings & Record<string, unknown>;
  if (settings.on_failure) settings.on_failure = { workflow: { ref: refOf(settings.on_failure.workflow_id, row) } } as never;
  if (settings.notify) settings.notify = { ...settings.notify, url: stripUrlCredentials(settings.notify.url) };
  return settings;
}

/** The ids of the MCP connections the workflow's tool names hold (tool steps, agent steps' tools, a poll trigger). */
function mcpConnectionIds(row: Workflow): number[] {
  const ids: number[] = [];
  const note = (name: unknown) => {
    const mcp = mcpToolParts(name);
    if (mcp) ids.push(mcp.connectionId);
  };
  eachStep(row.steps, (step) => {
    note(step.tool);
    if (Array.isArray(step.tools)) step.tools.forEach(note);
  });
  note(row.triggerConfig.tool);
  return ids;
}

/** Platform and name of the workspace's connections among `ids` (D1 binds at most 100 values a statement). */
async function connectionNames(ctx: ServiceContext, row: Workflow, ids: number[]): Promise<Map<number, ConnectionRef>> {
  const wanted = [...new Set(ids)].slice(0, 90);
  const found = new Map<number, ConnectionRef>();
  if (wanted.length === 0) return found;
  const rows = await ctx.db
    .select({ id: connections.id, platform: connections.platform, name: connections.name })
    .from(connections)
    .where(and(eq(connections.userId, ctx.workspace.id), inArray(connections.id, wanted)))
    .all();
  for (const { id, platform, name } of rows) found.set(id, { platform, name });
  if (new Set(ids).size > wanted.length) throw new HubError("limit_exceeded", `Workflow "${row.name}" names more than 90 connections: too many to export.`);
  return found;
}
